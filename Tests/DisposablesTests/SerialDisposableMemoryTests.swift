import Disposables
import Testing
import TestSupport

/// What a serial disposable retains, and when it lets go.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SerialDisposableMemoryTests {
    // RAC: "should release the inner disposable upon deallocation".
    @Test func releasesTheInnerDisposableUponDeinit() {
        let weakInner: Weak<ActionDisposable>
        let weakSerial: Weak<SerialDisposable>
        do {
            let inner = ActionDisposable()
            let serial = SerialDisposable()
            serial.disposable = inner
            weakInner = Weak(inner)
            weakSerial = Weak(serial)
        }
        #expect(weakSerial.object == nil)
        #expect(weakInner.object == nil)
    }

    @Test func releasesTheInnerDisposableAtDisposal() {
        let serial = SerialDisposable()
        let weakInner: Weak<ActionDisposable>
        do {
            let inner = ActionDisposable()
            weakInner = Weak(inner)
            serial.disposable = inner
        }
        #expect(weakInner.object != nil, "the inner disposable is retained until disposal")

        serial.dispose()
        #expect(weakInner.object == nil)
        withExtendedLifetime(serial) {}
    }

    @Test func releasesTheOldInnerDisposableWhenReplaced() {
        let serial = SerialDisposable()
        let weakOld: Weak<ActionDisposable>
        do {
            let old = ActionDisposable()
            weakOld = Weak(old)
            serial.disposable = old
            serial.disposable = ActionDisposable()
        }
        #expect(weakOld.object == nil)
        withExtendedLifetime(serial) {}
    }

    @Test func releasesADisposableSetAfterDisposal() {
        let serial = SerialDisposable()
        serial.dispose()
        let weakLate: Weak<ActionDisposable>
        do {
            let late = ActionDisposable()
            weakLate = Weak(late)
            serial.swap(late)
        }
        #expect(weakLate.object == nil)
        withExtendedLifetime(serial) {}
    }

    @Test func anInnerDisposableCapturingTheSerialOneDoesNotLeakOnceDisposed() {
        let weakSerial: Weak<SerialDisposable>
        do {
            let serial = SerialDisposable()
            weakSerial = Weak(serial)
            // A cycle: serial → inner → action → serial, broken by disposal.
            serial.disposable = ActionDisposable { serial.dispose() }
            serial.dispose()
        }
        #expect(weakSerial.object == nil)
    }
}
