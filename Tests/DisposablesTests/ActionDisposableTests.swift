import Dispatch
import Disposables
import Testing
import TestSupport

/// RACDisposableSpec, ReactiveSwift's SimpleDisposable/ActionDisposable specs and RxSwift's
/// `testActionDisposable`, against `ActionDisposable`, plus the contract's release guarantees.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ActionDisposableTests {
    // RAC: "should initialize without a block"; ReactiveSwift: "should set disposed to true".
    @Test func initialisesWithoutAnAction() {
        let disposable = ActionDisposable()
        #expect(!disposable.isDisposed)

        disposable.dispose()
        #expect(disposable.isDisposed)
    }

    // RAC: "should execute a block upon disposal"; ReactiveSwift: "should run the given action".
    @Test func runsTheActionUponDisposal() {
        let runs = Counter()
        let disposable = ActionDisposable { runs.increment() }
        #expect(runs.value == 0)
        #expect(!disposable.isDisposed)

        disposable.dispose()
        #expect(runs.value == 1)
        #expect(disposable.isDisposed)
    }

    // RxSwift: testActionDisposable.
    @Test func runsTheActionOnlyOnceWhenDisposedAgain() {
        let runs = Counter()
        let disposable = ActionDisposable { runs.increment() }

        disposable.dispose()
        disposable.dispose()
        disposable.dispose()
        #expect(runs.value == 1)
        #expect(disposable.isDisposed)
    }

    // RAC: "should not dispose upon deallocation".
    @Test func doesNotDisposeUponDeinit() {
        let runs = Counter()
        let weakDisposable: Weak<ActionDisposable>
        do {
            let disposable = ActionDisposable { runs.increment() }
            weakDisposable = Weak(disposable)
            #expect(weakDisposable.object != nil)
        }
        #expect(weakDisposable.object == nil)
        #expect(runs.value == 0)
    }

    @Test func releasesTheActionAndWhatItCapturedBeforeDisposeReturns() {
        let disposable: ActionDisposable
        let weakToken: Weak<Token>
        do {
            let token = Token()
            weakToken = Weak(token)
            disposable = ActionDisposable { withExtendedLifetime(token) {} }
        }
        #expect(weakToken.object != nil, "the action (and its capture) is held until disposal")

        disposable.dispose()
        #expect(weakToken.object == nil)
        withExtendedLifetime(disposable) {}
    }

    @Test func releasesWhatTheActionCapturedWhenDroppedUndisposed() {
        let runs = Counter()
        let weakToken: Weak<Token>
        do {
            let token = Token()
            weakToken = Weak(token)
            _ = ActionDisposable {
                withExtendedLifetime(token) {}
                runs.increment()
            }
        }
        #expect(weakToken.object == nil)
        #expect(runs.value == 0)
    }

    @Test func runsTheActionOnTheDisposingThread() async {
        let queue = DispatchQueue(label: "ActionDisposableTests.disposer")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "disposer")
        let seen = Log<String?>()
        let disposable = ActionDisposable { seen.append(DispatchQueue.getSpecific(key: key)) }

        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async {
                disposable.dispose()
                done.resume()
            }
        }
        #expect(seen.values == ["disposer"])
    }

    @Test func toleratesDisposingItselfFromItsOwnAction() {
        let runs = Counter()
        let sawDisposed = Log<Bool>()
        let holder = Holder()
        let disposable = ActionDisposable {
            runs.increment()
            sawDisposed.append(holder.disposable?.isDisposed ?? false)
            holder.disposable?.dispose()
        }
        holder.disposable = disposable

        disposable.dispose()
        #expect(runs.value == 1)
        #expect(sawDisposed.values == [true], "isDisposed is already true while the action runs")
        #expect(disposable.isDisposed)
    }

    @Test func isUsableThroughTheProtocol() {
        let runs = Counter()
        let disposable: any Disposable = ActionDisposable { runs.increment() }
        disposable.dispose()
        #expect(disposable.isDisposed)
        #expect(runs.value == 1)
    }
}

/// Lets an action reach the disposable it belongs to. Written once before disposal, on the test's
/// thread, and read only by the action on that same thread.
private final class Holder: @unchecked Sendable {
    var disposable: ActionDisposable?
}
