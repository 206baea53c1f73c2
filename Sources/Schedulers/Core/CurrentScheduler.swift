import CurrentSchedulerSlot
import Foundation

/// The thread-local slot behind `Scheduler.current`.
///
/// RAC kept the current scheduler in `NSThread.threadDictionary`, which costs ≈ 300 ns a read
/// and ≈ 1 µs a write here (Platform notes, item 10): more than the rest of a `schedule`. A
/// pthread key costs a few nanoseconds a read, but setting and restoring it around every action
/// cost ~70 instructions, 6 % of a whole `schedule` on a queue (callgrind); the slot is therefore
/// a C `_Thread_local` (the CurrentSchedulerSlot target), read and written inline, with no call.
/// The slot holds an *unretained* pointer: it is only ever set to a
/// scheduler by `Scheduler.performAsCurrentScheduler`, which runs on the scheduler itself and
/// restores the previous value before returning, so the scheduler outlives every moment the
/// pointer is set.
///
/// When no scheduler is running, the slot caches whether this is the main thread, because
/// `Thread.isMainThread` costs ≈ 335 ns on Linux and `current` must fall back to `main` there.
/// A thread's slot starts nil ("not asked yet"); the first read stores either `main` itself (on
/// the main thread: `main` is never deinitialised, so the unretained pointer stays valid, and a
/// read there costs what a read inside an action does, with no lazy-global check) or a marker
/// meaning "no scheduler" (elsewhere). Restoring "the previous value" restores that too.
@usableFromInline
enum CurrentScheduler {
    /// No scheduler is running and this is not the main thread.
    @inlinable
    static var otherThreadMarker: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 2)! }

    /// The raw slot, so callers can restore exactly what they found.
    @inlinable
    static var slot: UnsafeMutableRawPointer? {
        @inline(__always) get { schedulers_current_slot_get() }
        @inline(__always) set { schedulers_current_slot_set(newValue) }
    }

    /// The slot as it stands, classified first if this thread has not been asked yet: a
    /// scheduler's address, or ``otherThreadMarker``; never nil.
    @inlinable
    static var classifiedSlot: UnsafeMutableRawPointer {
        @inline(__always) get { slot ?? classifyThread() }
    }

    /// `Scheduler.current`: the running scheduler, else `main` on the main thread, else nil.
    ///
    /// Every path ends in the one conversion of a raw pointer to a reference, so that in a
    /// caller that only compares it (`Scheduler.current === s`), the reference count the
    /// conversion takes and the caller's release of it meet in one place and the optimiser
    /// removes both. (When the first-query path returned a reference of its own, the two paths
    /// merged a retained and an owned reference, and every read paid a retain and a release;
    /// Benchmarks/Results/callgrind.md has the counts.)
    @inlinable
    static var value: Scheduler? {
        let slot = classifiedSlot
        guard slot != otherThreadMarker else { return nil }
        return Unmanaged<Scheduler>.fromOpaque(slot).takeUnretainedValue()
    }

    /// Whether `scheduler` is `value`, compared by address: no reference is taken, so a check
    /// inside a running action writes no shared reference count.
    @inlinable
    static func isCurrent(_ scheduler: Scheduler) -> Bool {
        classifiedSlot == Unmanaged.passUnretained(scheduler).toOpaque()
    }

    /// Whether `value` is non-nil, without taking a reference to it.
    @inlinable
    static var isSet: Bool {
        classifiedSlot != otherThreadMarker
    }

    /// The first query on a thread with no scheduler running: asks Foundation once, caches the
    /// answer in the slot and returns it (`main`'s address, or ``otherThreadMarker``).
    @usableFromInline
    static func classifyThread() -> UnsafeMutableRawPointer {
        let classified = Thread.isMainThread ? Unmanaged.passUnretained(mainScheduler).toOpaque() : otherThreadMarker
        slot = classified
        return classified
    }
}

extension Scheduler {
    /// Whether this scheduler is ``Scheduler/current`` on the calling thread: the same answer as
    /// `Scheduler.current === self`. It compares addresses and never takes a reference to the
    /// current scheduler, so it writes no reference count shared with the threads scheduling
    /// onto it, wherever it is called from; `Scheduler.current === self` compiles to the same
    /// in optimised code that sees both sides.
    ///
    /// True while one of this scheduler's actions runs on this thread (including code it calls
    /// inline, on the immediate scheduler say), and for ``Scheduler/main`` on the main thread
    /// when no other scheduler's action is running there. False everywhere else.
    ///
    /// - Complexity: O(1): one thread-local read.
    @inlinable
    public var isCurrent: Bool {
        CurrentScheduler.isCurrent(self)
    }
}
