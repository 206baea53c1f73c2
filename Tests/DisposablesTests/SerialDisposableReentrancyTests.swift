import Disposables
import Testing
import TestSupport

/// The inner disposable may act on its serial disposable from inside its own action: the serial
/// one disposes it outside its lock (a re-entrant `Mutex` would trap).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SerialDisposableReentrancyTests {
    @Test func theInnerDisposableMayDisposeTheSerialOne() {
        let serial = SerialDisposable()
        let runs = Counter()
        serial.disposable = ActionDisposable {
            runs.increment()
            serial.dispose()
        }

        serial.dispose()
        #expect(runs.value == 1)
        #expect(serial.isDisposed)
    }

    @Test func disposingTheInnerOneThatDisposesTheSerialOneWorks() {
        let serial = SerialDisposable()
        let inner = ActionDisposable { serial.dispose() }
        serial.disposable = inner

        inner.dispose()
        #expect(serial.isDisposed)
        #expect(serial.disposable == nil)
    }

    @Test func theInnerDisposableSeesTheSerialOneDisposed() {
        let serial = SerialDisposable()
        let seen = Log<Bool>()
        serial.disposable = ActionDisposable { seen.append(serial.isDisposed) }
        serial.dispose()
        #expect(seen.values == [true])
    }

    @Test func aDisposableSetFromTheInnerOnesActionIsDisposedAtOnce() {
        let serial = SerialDisposable()
        let late = ActionDisposable()
        let swapResult = Log<Bool>()
        serial.disposable = ActionDisposable {
            swapResult.append(serial.swap(late) == nil)
        }

        serial.dispose()
        #expect(swapResult.values == [true])
        #expect(late.isDisposed)
        #expect(serial.disposable == nil)
    }

    @Test func theInnerDisposableMayReplaceItselfBeforeTheSerialOneIsDisposed() {
        let serial = SerialDisposable()
        let next = ActionDisposable()
        let inner = ActionDisposable { serial.disposable = next }
        serial.disposable = inner

        inner.dispose()
        #expect(serial.disposable === next)
        #expect(!next.isDisposed)
        #expect(!serial.isDisposed)
    }
}
