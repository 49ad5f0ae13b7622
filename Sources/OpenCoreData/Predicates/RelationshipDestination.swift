/// A class whose instances a relationship leads to, as an array in a `#Predicate`:
/// OpenSwiftData's `PersistentModel` refines it, so that the predicate converter tells an
/// optional to-many relationship (`[Track]?`, never nil in a store) from an optional array
/// attribute (which may be). Not for apps to adopt.
public protocol _RelationshipDestination: AnyObject {}
