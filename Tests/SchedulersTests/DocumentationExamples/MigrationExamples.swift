import Foundation
import Schedulers
import Testing
import TestSupport

// The "after" code of the three migration articles (MigratingFromReactiveCocoa.md,
// MigratingFromReactiveSwift.md, MigratingFromRxSwift.md) as snippet regions inside tests that
// assert what the articles say. The "before" code (Objective-C, ReactiveSwift, RxSwift) is
// shown on the pages only: none of those libraries is available to compile against here.

/// What the snippets call, recorded so the tests can assert it.
private let calls = Locked<[String]>([])
private func poll() { calls.withLock { $0.append("poll") } }
private func retry() { calls.withLock { $0.append("retry") } }
private func refresh() { calls.withLock { $0.append("refresh") } }

/// What the snippets print, recorded instead of written to standard output, so that a green run
/// is quiet and the tests can assert it.
private let printed = Locked<[String]>([])
private func print(_ line: String) { printed.withLock { $0.append(line) } }

/// A request that records its disposal, for the SerialDisposable example.
private func request(_ name: String) -> ActionDisposable {
    ActionDisposable { calls.withLock { $0.append("cancel \(name)") } }
}

/// One serialized suite: the three share the recorded calls.
@Suite(.ownThread, .timeLimit(.minutes(5)), .serialized) struct MigrationExamples {
    // MARK: ReactiveCocoa

    @Suite(.ownThread, .timeLimit(.minutes(5))) struct ReactiveCocoaMigrationExamples {
        /// A named background scheduler, a delayed action, the current scheduler, disposal.
        @Test func scheduleAfterADelay() {
            let current = Locked<Scheduler?>(nil)
            // snippet: migrating-rac-after-delay
            let work = TargetQueueScheduler(priority: .default, name: "example.work")
            let disposable = work.schedule(afterDelay: 0.1) {
                current.withLock { $0 = Scheduler.current }   // work
            }
            // snippet: end
            #expect(waitUntil { current.value != nil })
            #expect(current.value === work)
            disposable?.dispose()   // too late to matter; before the delay it would cancel the run
        }

        /// A repeating timer with leeway on the main scheduler, and a compound disposable kept
        /// scoped by its owner.
        @Test func timerAndScopedCompound() {
            calls.withLock { $0 = [] }
            printed.withLock { $0 = [] }
            let scheduler = TestScheduler()
            var owner: ScopedDisposable?
            // snippet: migrating-rac-timer
            let compound = CompoundDisposable()
            let timer = scheduler.schedule(
                after: scheduler.now, repeatingEvery: 1, leeway: 0.1
            ) { poll() }
            compound.add(timer)
            compound.add(ActionDisposable { print("torn down") })
            owner = compound.asScoped()   // disposes compound when owner is released
            // snippet: end
            scheduler.advance(by: 2)
            #expect(calls.value == ["poll", "poll", "poll"])
            _ = owner
            owner = nil
            #expect(compound.isDisposed)
            #expect(printed.value == ["torn down"])
            scheduler.advance(by: 2)
            #expect(calls.value.count == 3)
        }

        /// RAC's immediate recursion over a local variable: the block need not be `Sendable`
        /// where the static type is `ImmediateScheduler`.
        @Test func immediateRecursionOverALocalVariable() {
            // snippet: migrating-rac-immediate-recursion
            let immediate = ImmediateScheduler()
            var n = 0
            immediate.scheduleRecursive { again in
                n += 1
                if n < 3 { again() }
            }
            // n == 3: the loop has run when scheduleRecursive returns
            // snippet: end
            #expect(n == 3)
        }

        /// RACTestScheduler's stepping, plus a clock.
        @Test func testScheduler() {
            nonisolated(unsafe) var fired = false   // safe: actions run on the driving thread
            // snippet: migrating-rac-test-scheduler
            let scheduler = TestScheduler()
            scheduler.schedule(afterDelay: 5) { fired = true }
            scheduler.stepAll()   // or advance(by: 5): now is start + 5 s either way
            // snippet: end
            #expect(fired)
            #expect(scheduler.now == Date(timeIntervalSinceReferenceDate: 5))
        }
    }

    // MARK: ReactiveSwift

    @Suite(.ownThread, .timeLimit(.minutes(5))) struct ReactiveSwiftMigrationExamples {
        /// A serial queue of one's own and a repeating timer with an explicit leeway.
        @Test func queueSchedulerTimer() {
            calls.withLock { $0 = [] }
            // snippet: migrating-reactiveswift-timer
            let scheduler = TargetQueueScheduler(priority: .default, name: "work")
            let timer = scheduler.schedule(
                after: .zero, repeatingEvery: .seconds(1), leeway: .milliseconds(100)
            ) { poll() }
            // snippet: end
            #expect(waitUntil { calls.value.contains("poll") })
            timer?.dispose()
        }

        /// Replacing a SerialDisposable's inner disposable does not dispose the old one.
        @Test func serialDisposableSwap() {
            calls.withLock { $0 = [] }
            let serial = SerialDisposable(request("first"))
            // snippet: migrating-reactiveswift-serial
            // Swapping alone would not cancel the old one:
            serial.swap(request("second"))?.dispose()
            // snippet: end
            #expect(calls.value == ["cancel first"])
            serial.dispose()
            #expect(calls.value == ["cancel first", "cancel second"])
        }

        /// A Lifetime's job: everything an object started ends with it.
        @Test func lifetime() {
            calls.withLock { $0 = [] }
            let scheduler = TestScheduler()
            // snippet: migrating-reactiveswift-lifetime
            final class Screen {
                let subscriptions = ScopedCompoundDisposable()   // ends with the screen
                init(scheduler: Scheduler) {
                    scheduler.schedule(
                        after: .seconds(60), repeatingEvery: .seconds(60)
                    ) { refresh() }?.disposed(by: subscriptions)
                }
            }
            // snippet: end
            var screen: Screen? = Screen(scheduler: scheduler)
            scheduler.advance(by: 60)
            #expect(calls.value == ["refresh"])
            _ = screen
            screen = nil
            #expect(scheduler.pendingCount == 0)
        }

        /// TestScheduler: `advance(by:)` takes seconds, and nothing rewinds.
        @Test func testScheduler() {
            nonisolated(unsafe) var fired = false   // safe: actions run on the driving thread
            // snippet: migrating-reactiveswift-test-scheduler
            let scheduler = TestScheduler()
            scheduler.schedule(after: .seconds(5)) { fired = true }
            scheduler.advance(by: 5)   // seconds; scheduler.clock takes a Duration
            // snippet: end
            #expect(fired)
        }
    }

    // MARK: RxSwift

    @Suite(.ownThread, .timeLimit(.minutes(5))) struct RxSwiftMigrationExamples {
        /// DisposeBag and disposed(by:): one object that disposes what it holds when released.
        @Test func disposedBy() {
            calls.withLock { $0 = [] }
            let scheduler = TestScheduler()
            // snippet: migrating-rxswift-disposed-by
            final class Poller {
                private let bag = ScopedCompoundDisposable()   // RxSwift: DisposeBag()
                init(scheduler: Scheduler) {
                    scheduler.schedule(
                        after: .seconds(1), repeatingEvery: .seconds(1)
                    ) { poll() }?.disposed(by: bag)
                }
            }
            var poller: Poller? = Poller(scheduler: scheduler)
            // snippet: end
            scheduler.advance(by: 2)
            #expect(calls.value == ["poll", "poll"])
            _ = poller
            poller = nil   // the bag goes with it, and disposes the timer
            #expect(scheduler.pendingCount == 0)
        }

        /// scheduleRelative without state: capture what the action needs.
        @Test func scheduleRelative() {
            calls.withLock { $0 = [] }
            let scheduler = TestScheduler()
            // snippet: migrating-rxswift-relative
            let disposable = scheduler.schedule(after: .seconds(2)) { retry() }
            // snippet: end
            scheduler.advance(by: 2)
            #expect(calls.value == ["retry"])
            disposable?.dispose()
        }

        /// RxTest's integer ticks become seconds of a Date.
        @Test func testScheduler() {
            nonisolated(unsafe) var fired = false   // safe: actions run on the driving thread
            // snippet: migrating-rxswift-test-scheduler
            let scheduler = TestScheduler()
            let due = scheduler.now.addingTimeInterval(100)
            scheduler.schedule(after: due) { fired = true }
            scheduler.advance(to: due)   // or stepAll()
            // snippet: end
            #expect(fired)
        }
    }
}
