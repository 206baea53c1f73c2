import Foundation
@testable import Schedulers
import Testing
import TestSupport

/// Everything due at one virtual time runs in the order it was enqueued: tasks and actions,
/// main-actor and global alike.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct OneOrderTests {
    static let runs = stressCount(200)

    @Test func aTaskStartedBeforeAnActionRunsBeforeIt() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            scheduler.withCapturedTasks {
                Task { log.withLock { $0.append("task") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task { log.withLock { $0.append("second task") } }
                scheduler.advance(by: 0)
            }
            #expect(log.value == ["task", "action", "second task"])
        }
    }

    @Test func asynchronousCaptureKeepsTheOrderToo() async {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            await scheduler.withCapturedTasks {
                Task { log.withLock { $0.append("task") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task.detached { log.withLock { $0.append("detached") } }
                await scheduler.clock.advance(by: .zero)
            }
            #expect(log.value == ["task", "action", "detached"])
        }
    }

    @MainActor @Test func mainActorAndGlobalWorkShareOneOrder() {
        for _ in 0..<Self.runs {
            let scheduler = TestScheduler()
            let log = Locked([String]())
            scheduler.withCapturedTasks {
                Task.detached { log.withLock { $0.append("global") } }
                Task { log.withLock { $0.append("main") } }
                scheduler.schedule { log.withLock { $0.append("action") } }
                Task.detached { log.withLock { $0.append("later global") } }
                scheduler.advance(by: 0)
            }
            #expect(log.value == ["global", "main", "action", "later global"])
        }
    }
}
