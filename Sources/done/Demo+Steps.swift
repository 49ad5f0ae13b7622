import OpenCoreData

/// The steps of `done demo`, each a stage of the tutorials.
extension DemoStep {
    /// Builds the stack from the model file that ships with the program, on a new store.
    static var openStack: DemoStep {
        DemoStep(name: "open") { run in
            let store = try run.open()
            let entity = store.container.managedObjectModel.entitiesByName[TodoStore.entityName]
            let attributes = entity?.attributesByName.keys.sorted().joined(separator: ", ") ?? ""
            return "model Done.xcdatamodeld (TSPItem: \(attributes)), new store"
        }
    }

    /// The tutorials' populateDatabase: every item inserted in a background context, one save.
    static var populate: DemoStep {
        DemoStep(name: "populate") { run in
            let progress = ProgressBar(title: "populate", total: run.count)
            _ = try await Populate.populateDatabase(run.stack.store.container, count: run.count, progress: progress)
            return "\(run.count) items inserted in a background context, one save"
        }
    }

    /// Fetches every item sorted by createdAt, as the tutorials' table does.
    static var fetchSorted: DemoStep {
        DemoStep(name: "fetch") { run in
            let context = run.stack.context
            let request = TodoStore.itemsRequest()
            let (first, last) = try await context.perform {
                run.items = try context.fetch(request)
                return (run.items.first?.value(forKey: "name") as? String ?? "", run.items.last?.value(forKey: "name") as? String ?? "")
            }
            return "\(run.items.count) items by createdAt: \(first) … \(last)"
        }
    }

    /// Toggles the three oldest items through their objects, as tapping rows does, and saves.
    static var toggleItems: DemoStep {
        DemoStep(name: "toggle") { run in
            let context = run.stack.context
            return try await context.perform {
                let items = run.items.prefix(3)
                for item in items { item.setValue(!(item.value(forKey: "done") as? Bool ?? false), forKey: "done") }
                try context.save()
                let done = try context.count(for: TodoStore.itemsRequest(done: true))
                return "toggled the \(items.count) oldest through their objects, saved: \(done) done"
            }
        }
    }
}
