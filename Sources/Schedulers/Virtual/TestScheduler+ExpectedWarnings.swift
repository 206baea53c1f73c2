extension TestScheduler {
    /// Runs `body`, collecting the warnings this scheduler gives meanwhile instead of reporting
    /// them, and returns them, for a test that triggers a warning on purpose and checks its words.
    ///
    /// A warning is normally a failure of the running test (an issue in Swift Testing, a failure
    /// in XCTest; see "What waits, what runs, what warns" in the testing article). A warning this
    /// scheduler gives while `body` runs, from any thread, and a warning given by the calling task
    /// or a task it starts, is collected here instead: it fails nothing and prints nothing. This
    /// works in both frameworks; Swift Testing's `withKnownIssue` works too.
    ///
    /// - Parameter body: The code that triggers the warnings, run at once on the calling thread.
    /// - Returns: `body`'s result, and each warning given meanwhile, in order, each beginning with
    ///   "Schedulers warning: ".
    /// - Throws: What `body` throws.
    public func withExpectedWarnings<R>(_ body: () throws -> R) rethrows -> (result: R, warnings: [String]) {
        try Warning.capture(about: self, body)
    }

    /// The `async` form of ``withExpectedWarnings(_:)``.
    ///
    /// - Parameters:
    ///   - isolation: The actor `body` runs on: the caller's.
    ///   - body: The code that triggers the warnings.
    /// - Returns: `body`'s result, and each warning given meanwhile, in order.
    /// - Throws: What `body` throws.
    public func withExpectedWarnings<R>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> (result: R, warnings: [String]) {
        try await Warning.capture(about: self, isolation: isolation, body)
    }
}
