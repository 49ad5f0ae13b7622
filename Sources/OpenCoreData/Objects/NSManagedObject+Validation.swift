/// Validation against the model's rules, run by `save()` for every changed object.
extension NSManagedObject {
    func validateAllProperties() throws {
        var errors: [NSError] = []
        let layout = entity.layout
        // Instances of NSManagedObject itself, and of generated classes, cannot have overridden
        // validateValue(_:forKey:): ask the model's rules directly, without the key lookup, the
        // value and the dynamic call.
        let isBaseClass = !type(of: self)._mayOverrideValidateValue
        if isBaseClass, let layout {
            // Most slots pass on their case alone, read in place: no value copied, no property
            // looked at unless it fails or has rules of its own.
            fireFault()
            let checks = layout.objectTemplate.checks
            for slot in checks.indices {
                switch checks[slot] {
                case .none: continue
                case .presenceAndType(let isOptional):
                    switch slots.presence(at: slot) {
                    case .value: continue
                    case .null: if isOptional { continue }
                    case .invalid: break
                    }
                case .full: break
                }
                if let error = modelRuleError(for: layout.properties[slot]) { errors.append(error) }
            }
            if let error = CoreDataError.combining(errors) { throw error }
            return
        }
        flags.insert(.validatingHeldValues)
        defer { flags.remove(.validatingHeldValues) }
        for (slot, property) in (layout?.properties ?? entity.properties).enumerated() where !property.isTransient {
            if isBaseClass {
                if let error = modelRuleError(for: property) { errors.append(error) }
                continue
            }
            // The current value, as Core Data passes it: an override inspects it.
            var value = publicValue(of: property)
            let key = layout?.objectTemplate.names[slot] ?? property.name
            do { try validateValue(&value, forKey: key) } catch let error as NSError { errors.append(error) }
        }
        if let error = CoreDataError.combining(errors) { throw error }
    }

    /// The first model rule the current value of `property` breaks, as Core Data's error.
    func modelRuleError(for property: NSPropertyDescription) -> NSError? {
        fireFault()
        if let attribute = property as? NSAttributeDescription {
            return attributeRuleError(attribute, slots[attribute.slot])
        }
        guard let relationship = property as? NSRelationshipDescription else { return nil }
        if relationship.isToMany {
            let objects = toManySet(relationship).objects
            return relationshipRuleError(relationship, value: objects, count: objects.count)
        }
        let destination = toOneValue(relationship)
        return relationshipRuleError(relationship, value: destination, count: destination == nil ? 0 : 1)
    }

    /// The first model rule `value` would break as the value of `property`: what
    /// `validateValue(_:forKey:)` checks, whatever the object holds now.
    func modelRuleError(for property: NSPropertyDescription, value: Any?) -> NSError? {
        if let attribute = property as? NSAttributeDescription {
            return attributeRuleError(attribute, SlotValue(attributeValue: value, for: attribute))
        }
        guard let relationship = property as? NSRelationshipDescription else { return nil }
        if relationship.isToMany {
            return relationshipRuleError(relationship, value: value, count: value.map { ManagedValueConversion.objects($0).count } ?? 0)
        }
        return relationshipRuleError(relationship, value: value, count: value is NSManagedObject ? 1 : 0)
    }

    /// The first rule a relationship holding `count` objects (`value`) breaks: its count or
    /// presence, then its validation predicates, which an empty relationship is not asked.
    private func relationshipRuleError(_ relationship: NSRelationshipDescription, value: Any?, count: Int) -> NSError? {
        let broken =
            relationship.isToMany
            ? relationshipCountError(relationship, count: count) : relationshipPresenceError(relationship, isPresent: count > 0)
        if broken != nil || count == 0 { return broken }
        return predicateError(relationship, value: value, entityName: entity.name ?? "?")
    }

    /// The first model rule `slot` breaks as the value of `attribute`.
    private func attributeRuleError(_ attribute: NSAttributeDescription, _ slot: SlotValue) -> NSError? {
        // Only error messages use these: not read for the valid values a save mostly checks.
        var name: String { entity.name ?? "?" }
        var key: String { attribute.name }
        switch slot {
        case .invalid(let box):
            return CoreDataError.validation(
                NSManagedObjectValidationError,
                "Unacceptable type of value for attribute: entity \(name), property \(key), desired type \(attribute.attributeType.xcodeName), given value \(box.value) of type \(Swift.type(of: box.value)).",
                object: self, key: key, value: box.value)
        case .null:
            if !attribute.isOptional {
                return CoreDataError.validation(
                    NSValidationMissingMandatoryPropertyError, "\(key) is a required value of \(name).", object: self, key: key)
            }
            return nil
        default:
            if let template = entity.layout?.objectTemplate {
                if template.checks[attribute.slot] != .full { return nil }
            } else if attribute.rules.isEmpty && attribute.validationPredicates.isEmpty {
                return nil
            }
            if let composite = attribute as? NSCompositeAttributeDescription, case .object(let box) = slot,
                let error = elementError(composite, box.value, path: key, entityName: name)
            {
                return error
            }
            return ruleError(attribute, slot, entityName: name)
                ?? (attribute.validationPredicates.isEmpty ? nil : predicateError(attribute, value: slot.publicValue(for: attribute), entityName: name))
        }
    }

    /// The count rule a to-many relationship of `count` objects breaks, if any.
    private func relationshipCountError(_ relationship: NSRelationshipDescription, count: Int) -> NSError? {
        let (name, key) = (entity.name ?? "?", relationship.name)
        if count == 0 && (relationship.isOptional || relationship.allowsEmptyWhenRequired) { return nil }
        if count < max(relationship.minCount, relationship.isOptional || relationship.allowsEmptyWhenRequired ? 0 : 1) {
            return CoreDataError.validation(
                NSValidationRelationshipLacksMinimumCountError,
                "\(key) of \(name) has \(count) objects, fewer than its minimum of \(max(relationship.minCount, 1)).",
                object: self, key: key)
        }
        if relationship.maxCount > 0 && count > relationship.maxCount {
            return CoreDataError.validation(
                NSValidationRelationshipExceedsMaximumCountError,
                "\(key) of \(name) has \(count) objects, more than its maximum of \(relationship.maxCount).",
                object: self, key: key)
        }
        return nil
    }

    /// The error of a required to-one relationship without its object, if it is one.
    private func relationshipPresenceError(_ relationship: NSRelationshipDescription, isPresent: Bool) -> NSError? {
        guard !relationship.isOptional && !isPresent else { return nil }
        let (name, key) = (entity.name ?? "?", relationship.name)
        return CoreDataError.validation(
            NSValidationMissingMandatoryPropertyError, "\(key) is a required value of \(name).", object: self, key: key)
    }

    /// The first of the property's validation predicates its value fails, evaluated with the value
    /// as `SELF` (an attribute's value; a to-one's object; a to-many's objects, so that
    /// `@count <= 3` counts them), reported with its warning as Core Data does.
    private func predicateError(_ property: NSPropertyDescription, value: Any?, entityName name: String) -> NSError? {
        for (index, predicate) in property.validationPredicates.enumerated() where !predicate.evaluate(with: value) {
            let warning = index < property.validationWarnings.count ? "\(property.validationWarnings[index])" : "is invalid"
            var error = CoreDataError.validation(
                NSManagedObjectValidationError, "\(property.name) of \(name): \(warning)", object: self, key: property.name, value: value)
            var info = error.userInfo
            info[NSValidationPredicateErrorKey] = predicate
            error = NSError(domain: error.domain, code: error.code, userInfo: info)
            return error
        }
        return nil
    }

    /// The first element of a composite's dictionary that is required and missing, or breaks its
    /// model rules; its key is the element's path (`address.street`).
    private func elementError(_ composite: NSCompositeAttributeDescription, _ value: Any, path: String, entityName name: String) -> NSError? {
        let dictionary = CompositeValue.dictionary(value) ?? [:]
        for element in composite.elements {
            let key = path + "." + element.name
            guard let elementValue = dictionary[element.name] else {
                if element.isOptional { continue }
                return CoreDataError.validation(
                    NSValidationMissingMandatoryPropertyError, "\(key) is a required value of \(name).", object: self, key: key)
            }
            if let nested = element as? NSCompositeAttributeDescription {
                if let error = elementError(nested, elementValue, path: key, entityName: name) { return error }
            } else if let error = ruleError(element, SlotValue(attributeValue: elementValue, for: element), entityName: name) {
                return error
            }
        }
        return nil
    }

    private func ruleError(_ attribute: NSAttributeDescription, _ slot: SlotValue, entityName name: String) -> NSError? {
        let rules = attribute.rules
        guard !rules.isEmpty else { return nil }
        let key = attribute.name
        let value = slot.publicValue(for: attribute)
        func error(_ code: Int, _ text: String) -> NSError {
            CoreDataError.validation(code, "\(key) of \(name) \(text).", object: self, key: key, value: value)
        }
        switch slot {
        case .int, .double, .decimal, .bool:
            let number = (ValueComparison.normalize(value) as? Int64).map(Double.init)
                ?? (ValueComparison.normalize(value) as? Double)
                ?? (ValueComparison.normalize(value) as? Decimal).map { NSDecimalNumber(decimal: $0).doubleValue } ?? 0
            if let min = rules.minimum, number < min { return error(NSValidationNumberTooSmallError, "is less than \(min)") }
            if let max = rules.maximum, number > max { return error(NSValidationNumberTooLargeError, "is greater than \(max)") }
        case .date(let date):
            let seconds = date.timeIntervalSinceReferenceDate
            if let min = rules.minimum, seconds < min { return error(NSValidationDateTooSoonError, "is too soon") }
            if let max = rules.maximum, seconds > max { return error(NSValidationDateTooLateError, "is too late") }
        case .string(let string):
            let length = Double(string.count)
            if let min = rules.minimum, length < min { return error(NSValidationStringTooShortError, "is shorter than \(Int(min)) characters") }
            if let max = rules.maximum, length > max { return error(NSValidationStringTooLongError, "is longer than \(Int(max)) characters") }
            if let pattern = rules.pattern {
                let matches = (try? NSRegularExpression(pattern: "^(?:\(pattern))$"))
                    .map { $0.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil } ?? false
                if !matches { return error(NSValidationStringPatternMatchingError, "does not match the pattern \(pattern)") }
            }
        case .data(let data):
            let length = Double(data.count)
            if let min = rules.minimum, length < min { return error(NSValidationStringTooShortError, "is shorter than \(Int(min)) bytes") }
            if let max = rules.maximum, length > max { return error(NSValidationStringTooLongError, "is longer than \(Int(max)) bytes") }
        default:
            break
        }
        return nil
    }
}
