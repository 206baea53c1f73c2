extension TestScheduler {
    /// The scheduler whose virtual world the current task belongs to: the running
    /// `.virtualTime` test's, or the innermost `withCapturedTasks` whose task this is (a task
    /// it captured included); nil outside every world.
    ///
    /// ```swift
    /// @Test(.virtualTime(advancing: .manually)) func firesOnce() async throws {
    ///     let scheduler = try #require(TestScheduler.capturing)
    ///     …
    ///     await scheduler.clock.advance(by: .seconds(1))
    /// }
    /// ```
    ///
    /// Read from the test's own code, from any task it captured (wherever that task runs: on
    /// the scheduler, on the main actor, on another actor), and from the actions and jobs the
    /// scheduler runs. A task started with `Task.detached` inside a world is captured too, and
    /// reads its scheduler here once it runs.
    public static var capturing: TestScheduler? {
        worldOfRunningCode
    }
}
