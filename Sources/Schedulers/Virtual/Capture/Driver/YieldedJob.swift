/// Tells a `Task.yield()` among the jobs a ``TestScheduler`` takes.
///
/// On the 6.3 runtime a yield does not enqueue the task: it creates a small job that resumes
/// the task's continuation (the runtime's `NullaryContinuationJob`) and hands it to the task's
/// current scheduling executor, which for a job this scheduler runs is the scheduler itself
/// (measured: kind 195 through `TaskExecutor.enqueue`, once per `Task.yield()`; the self-enqueues
/// of a captured task switching to nonisolated code are the task itself, kind 0). The job's
/// kind is the low byte of its flags, the word after the heap-object header and the two
/// scheduler-private words (the runtime's `Job` layout, unchanged since Swift 5.5).
///
/// A yield is held back (``VirtualTimeCore/holdYield(_:)``) until the current virtual moment
/// has nothing else due, then released; a drive releases the held yields again and again while
/// anything else runs between the releases, so zero-time work runs to its end however many
/// times it yields, and stops releasing after ``VirtualTimeCore/yieldOnlyRoundLimit`` rounds of
/// nothing but yields, so a task that yields in a loop until a later time lets time move
/// (``VirtualTimeCore/DriveMoment``).
enum YieldedJob {
    /// The runtime's `JobKind::NullaryContinuation` (`First_Reserved` 192 + 3).
    private static let nullaryContinuationKind: UInt8 = 195

    /// Whether `job` is the continuation job of a `Task.yield()`.
    @inline(__always)
    static func isYield(_ job: UnownedJob) -> Bool {
        let header = unsafeBitCast(job, to: UnsafeRawPointer.self)
        return header.load(fromByteOffset: 4 * MemoryLayout<UInt>.size, as: UInt8.self) == nullaryContinuationKind
    }
}
