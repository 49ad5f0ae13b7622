import OpenCoreData

/// The steps of `todo demo`, each a stage of the tutorials.
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

    /// The tutorials' asynchronous fetch of every item by createdAt, with live progress, while the
    /// context keeps answering: a tiny block is given to it every millisecond meanwhile, and the
    /// longest any of them waited is reported.
    static var asynchronousFetch: DemoStep {
        DemoStep(name: "fetch") { run in
            let context = run.stack.context
            let bar = ProgressBar(title: "fetch", total: run.count)
            let probe = ContextProbe(context)
            let outcome = try await AsynchronousFetch().run(in: context, estimatedResultCount: run.count) { bar.update($0) }
            let (answered, longest) = probe.stop()
            guard case .fetched(let items) = outcome else { throw TodoError("The demo's asynchronous fetch was cancelled.") }
            bar.finish(items.count)
            run.items = items
            return "\(items.count) items by createdAt, asynchronously; meanwhile the context ran \(answered) blocks, longest wait \(String(format: "%.1f ms", ProgressBar.seconds(longest) * 1000))"
        }
    }

    /// A second asynchronous fetch, cancelled through its parent progress once half the rows are
    /// read: the completion gets NSUserCancelledError and the context keeps nothing of it.
    static var cancelledFetch: DemoStep {
        DemoStep(name: "cancel") { run in
            let context = run.stack.context
            let before = await context.perform { context.registeredObjects.count }
            let fetch = AsynchronousFetch()
            let half = run.count / 2
            let outcome = try await fetch.run(in: context, estimatedResultCount: run.count) { completed in
                if completed >= half { fetch.progress.cancel() }
            }
            let after = await context.perform { context.registeredObjects.count }
            guard case .cancelled(let read) = outcome else { return "finished before it could be cancelled" }
            let kept = after == before ? "nothing kept" : "\(after - before) objects kept"
            return "second fetch cancelled at \(read) of \(run.count) rows by its parent progress: \(kept)"
        }
    }

    /// Toggles the three oldest items through their objects, as tapping rows does, and saves.
    static var toggleItems: DemoStep {
        DemoStep(name: "toggle") { run in
            let context = run.stack.context
            return try await context.perform {
                let items = run.items.prefix(3)
                for item in items { item.done.toggle() }
                try context.save()
                let done = try context.count(for: TodoStore.itemsRequest(done: true))
                return "toggled the \(items.count) oldest through their objects, saved: \(done) done"
            }
        }
    }
}

extension DemoStep {
    /// The tutorials' Check All: one batch update, then the refresh loop; the objects the context
    /// holds show the new value.
    static var checkAll: DemoStep {
        DemoStep(name: "check-all") { run in
            let context = run.stack.context
            return try await context.perform {
                let heldDoneBefore = run.items.count(where: \.done)
                let updated = try CheckAll.checkAll(in: context)
                // The tutorials then refetch (`performFetch()`), which fills the refreshed faults
                // from one query instead of one query each.
                let refetched = try context.fetch(TodoStore.itemsRequest())
                let sameObjects = refetched.count == run.items.count && zip(refetched, run.items).allSatisfy { $0 === $1 }
                let heldDone = run.items.count(where: \.done)
                return "batch update of \(updated) rows, refresh, refetch\(sameObjects ? " (same objects)" : ""): done \(heldDoneBefore) → \(heldDone)"
            }
        }
    }

    /// Deletes the done items, now all of them, with one batch delete merged into the context.
    static var clearDone: DemoStep {
        DemoStep(name: "clear-done") { run in
            let context = run.stack.context
            return try await context.perform {
                let deleted = try ClearDone.clearDone(in: context)
                let left = try context.count(for: TodoStore.itemsRequest())
                run.items = []
                return "batch delete of \(deleted) done items; \(left) left in the store"
            }
        }
    }
}

extension DemoStep {
    /// What an app's extension does: follows the store while another process changes it. A child
    /// `todo` process populates and adds an item; this one prints each change as its remote
    /// change notification arrives, read from the persistent history.
    static var watch: DemoStep {
        DemoStep(name: "watch") { run in
            let watcher = try TodoStore(at: run.location, access: .update, watching: true)
            defer { watcher.close() }
            let seen = SeenLines()
            let follower = try ChangeFollower(store: watcher) { line in
                print("  watch: \(line)")
                seen.add(line)
            }
            let observer = NotificationCenter.default.addObserver(
                forName: .NSPersistentStoreRemoteChange, object: watcher.container.persistentStoreCoordinator, queue: nil
            ) { _ in follower.catchUp() }
            defer { NotificationCenter.default.removeObserver(observer) }
            let added = min(run.count, 1000)
            try DemoStep.runChild(["populate", "--count", "\(added)", "--store", run.location.argument])
            try DemoStep.runChild(["add", "Milk", "--store", run.location.argument])
            guard seen.wait(for: 2, timeout: 30) else {
                throw TodoError("The watcher saw \(seen.count) of the other process's two changes.")
            }
            // The walkthrough leaves an empty list, as clear-done did.
            let context = run.stack.context
            try await context.perform {
                let everything: NSFetchRequest<NSFetchRequestResult> = TSPItem.fetchRequest()
                _ = try context.execute(NSBatchDeleteRequest(fetchRequest: everything))
            }
            return "another process added \(added) items, then \"Milk\": both seen through history, then deleted"
        }
    }

    /// Runs this program again with `arguments`, its output dropped, and waits for it.
    static func runChild(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TodoError("`todo \(arguments.joined(separator: " "))` failed with status \(process.terminationStatus).")
        }
    }
}

/// The lines a demo's watcher printed, counted for the step that waits for them.
final class SeenLines: @unchecked Sendable {
    // @unchecked Sendable: `lines` under `condition`.
    private let condition = NSCondition()
    private var lines: [String] = []

    func add(_ line: String) {
        condition.lock()
        lines.append(line)
        condition.broadcast()
        condition.unlock()
    }

    var count: Int { condition.withLock { lines.count } }

    /// Waits until `count` lines were seen; false after `timeout` seconds.
    func wait(for count: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while lines.count < count {
            if !condition.wait(until: deadline) { return lines.count >= count }
        }
        return true
    }
}
