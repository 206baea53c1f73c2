import Foundation
import Schedulers
import Testing
import TestSupport

// The "after" code of "Migrating from swift-clocks and combine-schedulers"
// (MigratingFromSwiftClocks.md) as snippet regions inside tests that assert what the article
// says. The "before" code (swift-clocks' TestClock, ImmediateClock and swift-concurrency-extras'
// withMainSerialExecutor; combine-schedulers' AnySchedulerOf) is shown on the page only: the root
// package depends on nothing, and a `megaYield` test is the flake this article replaces.

@Suite(.ownThread, .timeLimit(.minutes(5))) struct ClockMigrationExamples {
    // MARK: swift-clocks

    /// A retry with exponential backoff, the kind of model a `TestClock` test drives with `run()`.
    // snippet: migrating-clocks-loader
    @MainActor final class Loader {
        private(set) var attempts = 0
        private(set) var loaded = false
        private let clock: any Clock<Duration>
        private let fails: Int

        init(clock: any Clock<Duration>, failingFirst fails: Int) {
            self.clock = clock
            self.fails = fails
        }

        func load() async {
            var delay = Duration.seconds(1)
            while attempts < fails {   // failing requests
                attempts += 1
                try? await clock.sleep(for: delay)
                delay *= 2
            }
            attempts += 1
            loaded = true
        }
    }
    // snippet: end

    /// `clock.run()` ends every sleep, in order, at once; the elapsed virtual time is exact.
    @MainActor @Test func runEndsEverySleep() async {
        // snippet: migrating-clocks-run
        let scheduler = TestScheduler()
        let clock = scheduler.clock       // swift-clocks: TestClock()
        let loader = Loader(clock: clock, failingFirst: 3)
        let start = clock.now
        await scheduler.withCapturedTasks {
            Task { await loader.load() }
            await clock.run()
        }
        #expect(loader.loaded)
        #expect(loader.attempts == 4)
        #expect(start.duration(to: clock.now) == .seconds(7))  // 1 + 2 + 4
        // snippet: end
        #expect(scheduler.pendingCount == 0)
    }

    /// `advance(by:)` stops exactly at the backoff steps; no `megaYield` between them.
    @MainActor @Test func advanceStopsBetweenRetries() async {
        for _ in 0..<100 {
            // snippet: migrating-clocks-advance
            let scheduler = TestScheduler()
            let loader = Loader(clock: scheduler.clock, failingFirst: 2)
            await scheduler.withCapturedTasks {
                Task { await loader.load() }
                await scheduler.clock.advance(by: .milliseconds(999))
                #expect(loader.attempts == 1)
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(loader.attempts == 2)     // retried at 1 s
                await scheduler.clock.advance(by: .seconds(2))
                #expect(loader.loaded)            // and at 1 + 2 s
            }
            // snippet: end
        }
    }

    /// The same test written synchronously: on the main actor `advance` runs the main-actor
    /// jobs that became ready, each at its virtual time.
    @MainActor @Test func synchronousAdvanceStopsBetweenRetries() {
        for _ in 0..<100 {
            // snippet: migrating-clocks-sync
            let scheduler = TestScheduler()
            let loader = Loader(clock: scheduler.clock, failingFirst: 2)
            scheduler.withCapturedTasks {
                Task { await loader.load() }
                scheduler.advance(by: 0.999)
                #expect(loader.attempts == 1)
                scheduler.advance(by: 0.001)
                #expect(loader.attempts == 2)
                scheduler.advance(by: 2)
                #expect(loader.loaded)
            }
            // snippet: end
        }
    }

    // MARK: combine-schedulers

    /// Saves two seconds after the last edit: code that took an `AnySchedulerOf<DispatchQueue>`.
    // snippet: migrating-combine-autosave
    final class Autosave: Sendable {
        private let scheduler: Scheduler   // was AnySchedulerOf<DispatchQueue>
        private let pending = SerialDisposable()
        private let save: @Sendable () -> Void

        init(
            scheduler: Scheduler = .main,   // was .main.eraseToAnyScheduler()
            save: @escaping @Sendable () -> Void
        ) {
            self.scheduler = scheduler
            self.save = save
        }

        func edited() {
            let next = scheduler.schedule(afterDelay: 2, save)
            pending.swap(next)?.dispose()   // the previous edit's save
        }
    }
    // snippet: end

    @Test func autosaveWaitsForTwoQuietSeconds() {
        let saves = Locked(0)
        // snippet: migrating-combine-test
        let scheduler = TestScheduler()   // was DispatchQueue.test
        let autosave = Autosave(scheduler: scheduler) {
            saves.withLock { $0 += 1 }
        }
        autosave.edited()
        scheduler.advance(by: 1)
        autosave.edited()
        scheduler.advance(by: 1.999)
        #expect(saves.value == 0)
        scheduler.advance(by: .milliseconds(1))  // or a TimeInterval
        #expect(saves.value == 1)
        // snippet: end
        #expect(scheduler.pendingCount == 0)
    }

    /// combine-schedulers' `run()`, and its `ImmediateScheduler` (which ignores delays), both
    /// become `stepAll()`: every pending action runs now, in order, in virtual time.
    @Test func stepAllRunsWhatIsPending() {
        let saves = Locked(0)
        // snippet: migrating-combine-step-all
        let scheduler = TestScheduler()
        let autosave = Autosave(scheduler: scheduler) {
            saves.withLock { $0 += 1 }
        }
        autosave.edited()
        scheduler.stepAll()   // was scheduler.run(), or an .immediate scheduler
        #expect(saves.value == 1)
        #expect(scheduler.now.timeIntervalSinceReferenceDate == 2)
        // snippet: end
    }
}
