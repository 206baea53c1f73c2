@_spi(SchedulersInternal) import Disposables
import Synchronization

/// One action scheduled on a ``TestScheduler``: its disposable, and nothing the scheduler needs
/// to run it. It names the action by slot and sequence number (see ``VirtualActionSlots``), so
/// once the action has run, or its slot holds another, disposing it does nothing but mark it.
final class VirtualAction: Disposable {
    let core: VirtualTimeCore
    let slot: UInt32
    let sequence: UInt64
    private let wasDisposed = Atomic<Bool>(false)

    init(core: VirtualTimeCore, slot: UInt32, sequence: UInt64) {
        self.core = core
        self.slot = slot
        self.sequence = sequence
    }

    var isDisposed: Bool {
        wasDisposed.load(ordering: .acquiring)
    }

    /// Releases the action before returning (outside the lock); it will not run.
    func dispose() {
        let action = core.dispose(slot: slot, sequence: sequence)
        // Set once the action is out of the queue, so that whoever sees `isDisposed` may rely on
        // its not starting any more (one another thread's `advance` had already popped may still
        // be running); and before the closure goes, as its captures' deinits may look.
        withExtendedLifetime(action) {
            wasDisposed.store(true, ordering: .releasing)
        }
    }
}
