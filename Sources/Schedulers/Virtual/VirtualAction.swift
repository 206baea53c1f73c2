@_spi(SchedulersInternal) import Disposables
import Synchronization

/// One action scheduled on a ``TestScheduler``: its disposable, and nothing the scheduler needs
/// to run it. It names the action by slot and sequence number (see ``VirtualActionSlots``), so
/// once the action has run, or its slot holds another, disposing it does nothing but mark it.
///
/// **Reused.** The scheduler keeps the disposable it handed out last, and when the next action
/// is scheduled while nobody else refers to it (the caller discarded it, as most do), renames
/// it for that action instead of allocating another (``VirtualTimeCore/enqueue(interval:action:due:)``):
/// an allocation and a deallocation saved per `schedule`, a fifth of what a scheduled action
/// cost. No holder can tell: a disposable is renamed only while the scheduler's reference is its
/// only one, strong, unowned or weak, ever (`schedulers_is_solely_referenced`). What a weak
/// reference can see is the delay: the last disposable handed out lives until the next
/// `schedule` or the scheduler's end (TestSchedulerDisposableReuseTests). The name is
/// atomic so that the renaming, under the scheduler's lock, and a former holder's last reads,
/// before it let go, are ordered by the reference count's release and acquire, not by a lock.
final class VirtualAction: Disposable {
    let core: VirtualTimeCore
    private let slot: Atomic<UInt32>
    private let sequence: Atomic<UInt64>
    private let wasDisposed = Atomic<Bool>(false)

    init(core: VirtualTimeCore, slot: UInt32, sequence: UInt64) {
        self.core = core
        self.slot = Atomic(slot)
        self.sequence = Atomic(sequence)
    }

    /// Names another action: only while nothing but the scheduler refers to this disposable,
    /// under the scheduler's lock.
    @inline(__always)
    func rename(slot: UInt32, sequence: UInt64) {
        self.slot.store(slot, ordering: .relaxed)
        self.sequence.store(sequence, ordering: .relaxed)
        wasDisposed.store(false, ordering: .relaxed)
    }

    var isDisposed: Bool {
        wasDisposed.load(ordering: .acquiring)
    }

    /// Releases the action before returning (outside the lock); it will not run.
    func dispose() {
        let action = core.dispose(slot: slot.load(ordering: .relaxed), sequence: sequence.load(ordering: .relaxed))
        // Set once the action is out of the queue, so that whoever sees `isDisposed` may rely on
        // its not starting any more (one another thread's `advance` had already popped may still
        // be running); and before the closure goes, as its captures' deinits may look.
        withExtendedLifetime(action) {
            wasDisposed.store(true, ordering: .releasing)
        }
    }
}
