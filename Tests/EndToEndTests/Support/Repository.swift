import Foundation

/// The checkout these tests were built from, found from this file's own path: for the tests
/// that read the repository itself (its documents, its scripts, its test sources).
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // Support
        .deletingLastPathComponent() // EndToEndTests
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()
}
