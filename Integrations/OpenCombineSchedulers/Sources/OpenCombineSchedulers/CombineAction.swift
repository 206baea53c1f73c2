/// A Combine action, allowed across threads.
///
/// Combine's `Scheduler` methods take plain (non-`Sendable`) closures, because moving the action
/// to another thread is the very job a scheduler is asked to do; `DispatchQueue`'s own Combine
/// scheduler hands the same closure to GCD. The schedulers here take `@Sendable` closures, so the
/// adapter vouches for the hand-off in this one place. The action runs once per run, never
/// concurrently with itself on a serial scheduler, and is released when it is done or disposed.
struct CombineAction: @unchecked Sendable {
    let run: () -> Void

    init(_ run: @escaping () -> Void) {
        self.run = run
    }
}
