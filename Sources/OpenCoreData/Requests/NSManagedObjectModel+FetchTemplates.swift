extension NSManagedObjectModel {
    /// A new fetch request from the template named `name`, with each `$variable` of its predicate
    /// replaced by its value in `variables`; nil when the model has no such template. The
    /// template itself is left as it is.
    ///
    /// ```swift
    /// // <fetchRequest name="LongBooks" entity="Book" predicateString="pages > $minimum"/>
    /// let request = model.fetchRequestFromTemplate(withName: "LongBooks", substitutionVariables: ["minimum": 300])
    /// ```
    ///
    /// A variable missing from `variables` stays in the predicate, and the SQLite store refuses
    /// to run it (`NSPersistentStoreUnsupportedRequestTypeError`).
    ///
    /// - Parameters:
    ///   - name: The name of the template in the model.
    ///   - variables: Values for the predicate's `$variables`, by name without the `$`.
    /// - Returns: A copy of the template with the values put in, or `nil` when the model has no
    ///   template of that name.
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any]) -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplate(forName: name) else { return nil }
        let request = template.copy() as! NSFetchRequest<NSFetchRequestResult>
        // A template set in code may carry only the model's string.
        let predicate = template.predicate ?? fetchRequestTemplatePredicateStrings[name].flatMap { try? NSPredicate(validatingFormat: $0) }
        request.predicate = predicate?.withSubstitutionVariables(variables)
        return request
    }
}
