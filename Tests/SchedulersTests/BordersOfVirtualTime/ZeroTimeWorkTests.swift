import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// At one virtual time a drive runs what is due until nothing is left, however many times tasks
/// yield; a task that yields in a loop until a later time still lets time move.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ZeroTimeWorkTests {
    static let runs = stressCount(200)

    /// A task that sleeps, then yields `yields` times, finishes in the advance that wakes it.
    @Test(arguments: [2, 3, 10, 100]) func yieldsAfterASleepFinishInTheDrive(yields: Int) {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let done = Locked(false)
            scheduler.withCapturedTasks {
                Task {
                    try? await scheduler.clock.sleep(for: .seconds(1))
                    for _ in 0..<yields { await Task.yield() }
                    done.withLock { $0 = true }
                }
                scheduler.advance(by: 0.999)
                #expect(!done.value)
                scheduler.advance(by: 0.001)
            }
            #expect(done.value)
            #expect(scheduler.pendingCount == 0)
        }
    }

    /// The same in the asynchronous shape, with `clock.advance`.
    @Test(arguments: [2, 3, 10, 100]) func yieldsAfterASleepFinishInTheAsyncDrive(yields: Int) async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let done = Locked(false)
            await scheduler.withCapturedTasks {
                Task {
                    try? await scheduler.clock.sleep(for: .seconds(1))
                    for _ in 0..<yields { await Task.yield() }
                    done.withLock { $0 = true }
                }
                await scheduler.clock.advance(by: .milliseconds(999))
                #expect(!done.value)
                await scheduler.clock.advance(by: .milliseconds(1))
                #expect(done.value)
            }
            #expect(scheduler.pendingCount == 0)
        }
    }

    /// A `@MainActor` view model whose task yields twice after its sleep.
    @MainActor @Test func aMainActorModelThatYieldsIsExact() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let model = YieldingModel(clock: scheduler.clock)
            scheduler.withCapturedTasks {
                model.load()
                scheduler.advance(by: 1)
                #expect(model.value == 1)
            }
        }
    }

    /// `stepAll()` and `run()` leave nothing due.
    @Test(arguments: [2, 10, 100]) func stepAllAndRunLeaveNothingDue(yields: Int) async {
        let scheduler = TestScheduler()
        let done = Locked(0)
        scheduler.withCapturedTasks {
            Task {
                try? await scheduler.clock.sleep(for: .seconds(1))
                for _ in 0..<yields { await Task.yield() }
                done.withLock { $0 += 1 }
            }
            scheduler.stepAll()
        }
        #expect(done.value == 1)
        #expect(scheduler.pendingCount == 0)
        await scheduler.withCapturedTasks {
            Task {
                try? await scheduler.clock.sleep(for: .seconds(1))
                for _ in 0..<yields { await Task.yield() }
                done.withLock { $0 += 1 }
            }
            await scheduler.clock.run()
            #expect(done.value == 2)
        }
        #expect(scheduler.pendingCount == 0)
    }

    /// Two tasks that yield five times in turn both finish in one drive, interleaved the same
    /// way every run.
    @Test func twoTasksYieldingInTurnBothFinish() {
        var traces = Set<[String]>()
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let trace = Locked([String]())
            scheduler.withCapturedTasks {
                for name in ["a", "b"] {
                    Task {
                        for step in 0..<5 {
                            trace.withLock { $0.append("\(name)\(step)") }
                            await Task.yield()
                        }
                        trace.withLock { $0.append("\(name) done") }
                    }
                }
                scheduler.advance(by: 0)
            }
            #expect(trace.value.contains("a done") && trace.value.contains("b done"))
            #expect(scheduler.pendingCount == 0)
            traces.insert(trace.value)
        }
        #expect(traces.count == 1)
    }

    /// A task that yields until a later time lets `advance` move time on and return.
    @Test func aTaskYieldingUntilALaterTimeLetsTimeMove() {
        let scheduler = TestScheduler()
        let flag = Locked(false)
        let finishedAt = Locked<TimeInterval?>(nil)
        scheduler.withCapturedTasks {
            Task {
                while !flag.value { await Task.yield() }
                finishedAt.withLock { $0 = scheduler.now.timeIntervalSinceReferenceDate }
            }
            scheduler.schedule(after: Date(timeIntervalSinceReferenceDate: 1)) { flag.withLock { $0 = true } }
            scheduler.advance(by: 0.5)
            #expect(finishedAt.value == nil)
            scheduler.advance(by: 1)
        }
        #expect(finishedAt.value == 1)
        #expect(scheduler.now.timeIntervalSinceReferenceDate == 1.5)
    }

    /// The documented number of rounds of nothing but yields after which a drive moves on.
    @Test func theRoundLimitIsTheDocumentedOne() {
        #expect(VirtualTimeCore.yieldOnlyRoundLimit == 1_000)
    }
}

@MainActor private final class YieldingModel {
    var value = 0
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration>) {
        self.clock = clock
    }

    func load() {
        Task {
            try? await clock.sleep(for: .seconds(1))
            await Task.yield()
            await Task.yield()
            value = 1
        }
    }
}
