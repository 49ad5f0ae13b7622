/// The largest models OpenCoreData accepts. A model beyond one of these is refused with an error
/// that names the entity, when it is loaded and again when a coordinator first uses it, so that no
/// later step traps or runs for minutes on it (docs/reliability.md).
enum ModelLimits {
    /// Properties of one entity, inherited ones included: an object keeps its values in a row whose
    /// length is a 16-bit count.
    static let maximumProperties = Int(UInt16.max)

    /// Levels below the root entity. Every entity holds the properties of all its ancestors, so a
    /// chain of n levels costs n²/2 property entries; 100 levels is far beyond any real model
    /// (Xcode's own templates use two or three) and still loads in milliseconds.
    static let maximumHierarchyDepth = 100

    /// How many levels `entity` is below its root entity, or nil when its superentity chain is
    /// longer than `maximumHierarchyDepth` (a cycle is always longer).
    static func depth(of entity: NSEntityDescription) -> Int? {
        var depth = 0
        var current = entity.superentity
        while let parent = current {
            depth += 1
            if depth > maximumHierarchyDepth { return nil }
            current = parent.superentity
        }
        return depth
    }

    /// The message for an entity whose chain of superentities is too long or loops.
    static func tooDeep(_ name: String) -> String {
        "entity '\(name)' is more than \(maximumHierarchyDepth) levels below its root entity, or its superentities form a cycle; at most \(maximumHierarchyDepth) levels are supported"
    }

    /// The message for an entity with more properties than an object can hold.
    static func tooManyProperties(_ name: String, count: Int) -> String {
        "entity '\(name)' has \(count) properties, inherited ones included; at most \(maximumProperties) are supported"
    }
}
