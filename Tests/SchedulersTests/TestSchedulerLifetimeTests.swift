import Foundation
import Schedulers
import Testing
import TestSupport

/// TestScheduler's memory: nothing pending keeps it alive; dropping it releases what is pending
/// without running it; disposal and running release an action's closure at once.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct TestSchedulerLifetimeTests {
    /// The kinds of pending work, each scheduled with a closure that holds `token`.
    enum Pending: CaseIterable, Sendable {
        case oneShot, delayed, repeating, recursiveChain
    }

    @discardableResult
    private func schedule(_ kind: Pending, on scheduler: TestScheduler, holding token: Token, ran: Locked<Int>) -> (any Disposable)? {
        switch kind {
        case .oneShot:
            return scheduler.schedule { _ = token; ran.withLock { $0 += 1 } }
        case .delayed:
            return scheduler.schedule(afterDelay: 1e6) { _ = token; ran.withLock { $0 += 1 } }
        case .repeating:
            return scheduler.schedule(after: scheduler.now, repeatingEvery: 1) { _ = token; ran.withLock { $0 += 1 } }
        case .recursiveChain:
            return scheduler.scheduleRecursive { reschedule in
                _ = token
                ran.withLock { $0 += 1 }
                reschedule()
            }
        }
    }

    @Test(arguments: Pending.allCases)
    func droppingTheSchedulerReleasesPendingWorkWithoutRunningIt(kind: Pending) {
        var scheduler: TestScheduler? = TestScheduler()
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let weakScheduler = Weak(scheduler!)
        let ran = Locked(0)
        // The test keeps the disposable: that must not keep the scheduler or the action alive.
        let disposable = schedule(kind, on: scheduler!, holding: token!, ran: ran)
        token = nil
        #expect(weakToken.object != nil)

        scheduler = nil
        #expect(weakScheduler.object == nil)
        #expect(weakToken.object == nil)
        #expect(ran.value == 0)
        disposable?.dispose()  // harmless afterwards
    }

    @Test(arguments: Pending.allCases)
    func droppingASchedulerThatHasRunSomeOfItsWorkReleasesTheRest(kind: Pending) {
        var scheduler: TestScheduler? = TestScheduler()
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let weakScheduler = Weak(scheduler!)
        let ran = Locked(0)
        let disposable = schedule(kind, on: scheduler!, holding: token!, ran: ran)
        schedule(.delayed, on: scheduler!, holding: token!, ran: ran)
        token = nil
        scheduler!.step(3)
        let ranBeforeDrop = ran.value
        #expect(ranBeforeDrop >= 1)

        scheduler = nil
        #expect(weakScheduler.object == nil)
        #expect(weakToken.object == nil)
        #expect(ran.value == ranBeforeDrop)
        _ = disposable
    }

    @Test func manyPendingActionsAreReleasedOnDrop() {
        var scheduler: TestScheduler? = TestScheduler()
        let token = Token()
        let weakToken = Weak(token)
        let weakScheduler = Weak(scheduler!)
        var disposables: [(any Disposable)?] = []
        for index in 0..<10_000 {
            let disposable = scheduler!.schedule(afterDelay: Double(index % 17)) { _ = token }
            if index % 3 == 0 { disposable?.dispose() } else { disposables.append(disposable) }
        }
        _ = consume token
        scheduler = nil
        #expect(weakScheduler.object == nil)
        #expect(weakToken.object == nil)
        #expect(disposables.count > 0)
    }

    @Test(arguments: [Pending.oneShot, .delayed, .repeating])
    func disposalReleasesTheActionAtOnce(kind: Pending) {
        let scheduler = TestScheduler()
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let ran = Locked(0)
        let disposable = schedule(kind, on: scheduler, holding: token!, ran: ran)
        token = nil
        #expect(weakToken.object != nil)
        disposable?.dispose()
        #expect(weakToken.object == nil)
        scheduler.advance(by: 10)
        #expect(ran.value == 0)
    }

    @Test func disposingARecursiveChainReleasesItsActionWhenTheSchedulerGoes() {
        var scheduler: TestScheduler? = TestScheduler()
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let ran = Locked(0)
        let chain = schedule(.recursiveChain, on: scheduler!, holding: token!, ran: ran)
        token = nil
        scheduler!.step(5)
        #expect(ran.value == 5)
        chain?.dispose()
        scheduler!.advance(by: 10)
        #expect(ran.value == 5)
        scheduler = nil
        #expect(weakToken.object == nil)
    }

    @Test func aOneShotIsReleasedOnceItHasRun() {
        let scheduler = TestScheduler()
        var token: Token? = Token()
        let weakToken = Weak(token!)
        let disposable = scheduler.schedule { [token] in _ = token }
        token = nil
        scheduler.step()
        #expect(weakToken.object == nil)
        _ = disposable
    }

    @Test func workScheduledByAnActionIsReleasedOnDropToo() {
        // An action that holds the scheduler weakly schedules more; dropping the scheduler
        // afterwards releases that new work without running it.
        var scheduler: TestScheduler? = TestScheduler()
        let weakScheduler = Weak(scheduler!)
        let token = Token()
        let weakToken = Weak(token)
        let ran = Locked(0)
        scheduler!.schedule {
            weakScheduler.object?.schedule(afterDelay: 5) { _ = token; ran.withLock { $0 += 1 } }
        }
        _ = consume token
        scheduler!.step()
        #expect(scheduler!.pendingCount == 1)
        scheduler = nil
        #expect(weakScheduler.object == nil)
        #expect(weakToken.object == nil)
        #expect(ran.value == 0)
    }
}
