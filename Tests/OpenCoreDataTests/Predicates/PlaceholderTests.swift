import Testing
@testable import OpenCoreData

@Test func placeholder() {}
