import Dispatch
import Disposables
import Testing
import TestSupport

/// "dispose() never blocks on user code held under a lock": while one thread is inside a child's
/// action, another thread can still use the disposable that is disposing it. Were the lock held
/// around the action, the helper thread would block and these tests would time out (the
/// generous timeouts bound a failure; they are not timing assertions).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct NoLockHeldTests {
    @Test func aCompoundIsUsableFromAnotherThreadWhileAChildsActionRuns() {
        let parent = CompoundDisposable()
        let late = ActionDisposable()
        let helperDone = DispatchSemaphore(value: 0)
        let seen = Log<Bool>()
        parent.add(ActionDisposable {
            DispatchQueue.global().async {
                seen.append(parent.isDisposed)
                parent.add(late)
                parent.remove(late)
                helperDone.signal()
            }
            seen.append(helperDone.wait(timeout: .now() + 10) == .success)
        })

        parent.dispose()
        #expect(seen.values == [true, true], "the helper thread saw it disposed and was not blocked")
        #expect(late.isDisposed)
    }

    @Test func aSerialIsUsableFromAnotherThreadWhileItsInnerActionRuns() {
        let serial = SerialDisposable()
        let late = ActionDisposable()
        let helperDone = DispatchSemaphore(value: 0)
        let seen = Log<Bool>()
        serial.disposable = ActionDisposable {
            DispatchQueue.global().async {
                seen.append(serial.isDisposed)
                serial.disposable = late
                helperDone.signal()
            }
            seen.append(helperDone.wait(timeout: .now() + 10) == .success)
        }

        serial.dispose()
        #expect(seen.values == [true, true], "the helper thread saw it disposed and was not blocked")
        #expect(late.isDisposed)
    }

    @Test func anActionDisposableAnswersOtherThreadsWhileItsActionRuns() {
        let helperDone = DispatchSemaphore(value: 0)
        let seen = Log<Bool>()
        let holder = DisposableHolder()
        let disposable = ActionDisposable {
            DispatchQueue.global().async {
                holder.disposable?.dispose()  // a concurrent caller returns without waiting
                seen.append(holder.disposable?.isDisposed ?? false)
                helperDone.signal()
            }
            seen.append(helperDone.wait(timeout: .now() + 10) == .success)
        }
        holder.disposable = disposable

        disposable.dispose()
        #expect(seen.values == [true, true], "the helper thread saw it disposed and was not blocked")
    }
}

/// Lets an action reach the disposable it belongs to. Written once before disposal; read after
/// the disposing thread has handed work to the helper thread (a happens-before edge).
private final class DisposableHolder: @unchecked Sendable {
    var disposable: ActionDisposable?
}
