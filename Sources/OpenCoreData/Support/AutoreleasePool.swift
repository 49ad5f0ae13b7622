#if !canImport(ObjectiveC)
/// Runs `body` and returns its result: Core Data import loops wrap each batch in an autorelease
/// pool to release the batch's Objective-C temporaries, and on Apple platforms the function comes
/// from the Objective-C runtime. Swift without that runtime releases objects when their last
/// reference goes, so there is nothing to drain; the function lets that code compile unchanged.
///
/// - Parameter body: The work, typically one batch of an import.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws.
public func autoreleasepool<Result>(invoking body: () throws -> Result) rethrows -> Result {
    try body()
}
#endif
