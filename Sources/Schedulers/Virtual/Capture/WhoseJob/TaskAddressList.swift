@_spi(SchedulersInternal) import Disposables
import Synchronization

/// A few tasks, by address, asked about for every job a hook or a run of captured work sees:
/// the tasks driving asynchronous captures (``CapturedTasks``), the bodies a scheduler runs
/// (``OutsideArrivals``). Usually it holds none or one (one test's capture at a time), and then
/// ``contains(_:)`` takes no lock: two atomic loads, where the lock and a search were a tenth of
/// a captured task's cost in the hook (callgrind). Noncopyable and stored inline in its owner,
/// so that it costs no allocation of its own (one per scheduler, beside its main-actor stand-in).
struct TaskAddressList: ~Copyable, Sendable {
    private let list = Lock([UInt]())
    /// `list.count`, written under the lock.
    private let count = Atomic<Int>(0)
    /// The one address while `count` is 1, else 0; written under the lock, before `count`.
    private let only = Atomic<UInt>(0)

    func add(_ task: UInt) {
        list.withLock { list in
            list.append(task)
            publish(list)
        }
    }

    /// Removes one entry for `task`; `whenEmptied` runs under the lock if none is left, so that
    /// nothing added meanwhile sees its effect.
    func remove(_ task: UInt, whenEmptied: () -> Void = {}) {
        list.withLock { list in
            if let index = list.lastIndex(of: task) { list.remove(at: index) }
            publish(list)
            if list.isEmpty { whenEmptied() }
        }
    }

    /// Whether `task` is held. A task's own jobs are enqueued after its `add` on its own
    /// thread, or resumed by code that call happened before, so they see it.
    func contains(_ task: UInt) -> Bool {
        switch count.load(ordering: .acquiring) {
        case 0:
            return false
        case 1:
            // 0: another task came or went meanwhile; ask the list.
            let only = only.load(ordering: .acquiring)
            if only != 0 { return only == task }
        default:
            break
        }
        return list.withLock { $0.contains(task) }
    }

    private func publish(_ list: [UInt]) {
        only.store(list.count == 1 ? list[0] : 0, ordering: .releasing)
        count.store(list.count, ordering: .releasing)
    }
}
