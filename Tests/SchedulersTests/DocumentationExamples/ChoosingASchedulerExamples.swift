import Foundation
import Schedulers
import Testing
import TestSupport

// The claims of the "Choosing a scheduler" article (ChoosingAScheduler.md): which thread each
// scheduler runs an action on, and what `Scheduler.current` is there. `Scheduler.main` and
// `Scheduler.mainInline` need the main thread's run loop, so their claims are proven by the
// XCTest cases `MainSchedulerTests` and `MainInlineSchedulerTests`.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ChoosingASchedulerExamples {
    /// Immediate: inline, on the calling thread, before `schedule` returns; `current` unchanged.
    @Test func immediateRunsInlineOnTheCallingThread() {
        let caller = Thread.current
        nonisolated(unsafe) var ranOn: Thread?
        nonisolated(unsafe) var currentInside: Scheduler? = Scheduler.immediate   // overwritten below
        let currentOutside = Scheduler.current

        let disposable = Scheduler.immediate.schedule {
            ranOn = Thread.current
            currentInside = Scheduler.current
        }

        #expect(ranOn === caller)                  // already ran, here
        #expect(currentInside === currentOutside)  // the immediate scheduler does not set it
        #expect(disposable == nil)                 // nothing left to cancel
    }

    /// QueueScheduler: on the queue you give it, as `Scheduler.current`.
    @Test func queueSchedulerRunsOnItsQueue() {
        let databaseQueue = DispatchQueue(label: "com.example.database")
        let scheduler = QueueScheduler(name: "db", queue: databaseQueue)
        let checked = Locked<Bool?>(nil)

        scheduler.schedule {
            dispatchPrecondition(condition: .onQueue(databaseQueue))   // traps if not
            checked.withLock { $0 = Scheduler.current === scheduler }
        }

        #expect(waitUntil { checked.value != nil })
        #expect(checked.value == true)
    }

    /// The article's "Queue and target queue" snippet: your queue, or a new one labelled with
    /// the scheduler's name.
    @Test func creatingQueueSchedulers() {
        // snippet: choosing-queue-schedulers
        let databaseQueue = DispatchQueue(label: "com.example.database")
        // On your queue:
        let scheduler = QueueScheduler(name: "db", queue: databaseQueue)
        // On a new serial queue of its own:
        let io = TargetQueueScheduler(
            name: "io", targetQueue: .global(qos: .utility))
        let thumbs = TargetQueueScheduler(priority: .background, name: "thumbs")
        // snippet: end

        #expect(scheduler.queue === databaseQueue)
        #expect(scheduler.name == "db")
        #expect(io.queue.label == "io")
        #expect(thumbs.queue.label == "thumbs")
    }

    /// TargetQueueScheduler: its own serial queue, even over a concurrent target.
    @Test func targetQueueSchedulerIsSerialOverAConcurrentTarget() {
        let io = TargetQueueScheduler(
            name: "io", targetQueue: .global(qos: .utility))
        let state = Locked((running: 0, overlaps: 0, finished: 0))

        for _ in 0..<200 {
            io.schedule {
                state.withLock { $0.running += 1; if $0.running > 1 { $0.overlaps += 1 } }
                usleep(50)
                state.withLock { $0.running -= 1; $0.finished += 1 }
            }
        }

        #expect(waitUntil { state.value.finished == 200 })
        #expect(state.value.overlaps == 0)
    }

    /// Subscription: inline inside another scheduler's action; else on a background scheduler.
    @Test func subscriptionRunsInlineInsideAnotherScheduler() {
        let work = TargetQueueScheduler(name: "work")
        let result = Locked<(inline: Bool, current: Bool)?>(nil)

        work.schedule {
            nonisolated(unsafe) var ran = false
            Scheduler.subscription.schedule { ran = Scheduler.current === work }
            result.withLock { $0 = (inline: ran, current: ran) }   // it already ran, as work
        }

        #expect(waitUntil { result.value != nil })
        #expect(result.value?.inline == true)
    }

    @Test func subscriptionRunsInTheBackgroundOutsideAnyScheduler() {
        #expect(Scheduler.current == nil)   // a Swift Testing test runs on the cooperative pool
        let current = Locked<Scheduler??>(nil)

        Scheduler.subscription.schedule { current.withLock { $0 = .some(Scheduler.current) } }

        #expect(waitUntil { current.value != nil })
        #expect(current.value! != nil)                          // its own background scheduler
        #expect(current.value! !== Scheduler.subscription)
    }

    /// TestScheduler: nothing runs until driven; then on the driving thread, in virtual time.
    @Test func testSchedulerRunsOnTheDrivingThreadInVirtualTime() {
        let scheduler = TestScheduler()
        let driver = Thread.current
        nonisolated(unsafe) var ranOn: Thread?
        nonisolated(unsafe) var ranAt: Date?

        scheduler.schedule(after: .seconds(30)) {
            ranOn = Thread.current
            ranAt = scheduler.now
        }
        #expect(ranOn == nil)                     // not yet: time has not moved

        scheduler.advance(by: 30)                 // takes microseconds, not 30 s
        #expect(ranOn === driver)
        #expect(ranAt == Date(timeIntervalSinceReferenceDate: 30))
    }
}
