import Disposables
import Testing
import TestSupport

/// RACSerialDisposableSpec and ReactiveSwift's SerialDisposable spec, against `SerialDisposable`
/// with RAC's semantics: replacing the inner disposable does NOT dispose the old one.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct SerialDisposableTests {
    // RAC: "should initialize with -init".
    @Test func initialisesEmpty() {
        let serial = SerialDisposable()
        #expect(serial.disposable == nil)
        #expect(!serial.isDisposed)
    }

    // RAC: "should initialize an inner disposable with -initWithBlock:".
    @Test func disposingTheInnerOneDoesNotDisposeTheSerialOne() {
        let runs = Counter()
        let serial = SerialDisposable(ActionDisposable { runs.increment() })
        #expect(serial.disposable != nil)

        serial.disposable?.dispose()
        #expect(!serial.isDisposed)
        #expect(runs.value == 1)
    }

    // RAC: "should initialize with a disposable".
    @Test func initialisesWithADisposable() {
        let inner = ActionDisposable()
        let serial = SerialDisposable(inner)
        #expect(serial.disposable === inner)
        #expect(SerialDisposable(nil).disposable == nil)
    }

    // RAC: "should dispose of the inner disposable"; ReactiveSwift: the same.
    @Test func disposesTheInnerDisposable() {
        let runs = Counter()
        let inner = ActionDisposable { runs.increment() }
        let serial = SerialDisposable(inner)
        #expect(!serial.isDisposed)
        #expect(runs.value == 0)

        serial.dispose()
        #expect(serial.isDisposed)
        #expect(serial.disposable == nil)
        #expect(runs.value == 1)
        #expect(inner.isDisposed)
    }

    // ReactiveSwift: "should dispose of the inner disposable", set through the property.
    @Test func disposesAnInnerDisposableSetThroughTheProperty() {
        let serial = SerialDisposable()
        let inner = ActionDisposable()
        serial.disposable = inner
        #expect(serial.disposable === inner)
        #expect(!inner.isDisposed)
        #expect(!serial.isDisposed)

        serial.dispose()
        #expect(serial.disposable == nil)
        #expect(inner.isDisposed)
        #expect(serial.isDisposed)
    }

    // RAC: "should dispose of a new inner disposable if it's already been disposed".
    @Test func disposesANewInnerDisposableAtOnceOnceDisposed() {
        let runs = Counter()
        let inner = ActionDisposable { runs.increment() }
        let serial = SerialDisposable()
        serial.dispose()
        #expect(serial.isDisposed)
        #expect(runs.value == 0)

        serial.disposable = inner
        #expect(runs.value == 1)
        #expect(serial.disposable == nil)
    }

    // RAC: "should allow the inner disposable to be set to nil".
    @Test func allowsTheInnerDisposableToBeSetToNil() {
        let runs = Counter()
        let inner = ActionDisposable { runs.increment() }
        let serial = SerialDisposable(inner)

        serial.disposable = nil
        #expect(serial.disposable == nil)
        #expect(runs.value == 0, "clearing does not dispose")

        serial.disposable = inner
        #expect(serial.disposable === inner)

        serial.dispose()
        #expect(runs.value == 1)
        #expect(serial.disposable == nil)
    }

    // RAC: "should swap inner disposables".
    @Test func swapsInnerDisposables() {
        let first = ActionDisposable()
        let second = ActionDisposable()
        let serial = SerialDisposable(first)
        #expect(serial.swap(second) === first)
        #expect(!serial.isDisposed)
        #expect(!first.isDisposed)
        #expect(!second.isDisposed)

        serial.dispose()
        #expect(serial.isDisposed)
        #expect(serial.disposable == nil)
        #expect(!first.isDisposed)
        #expect(second.isDisposed)
    }

    // ReactiveSwift: "should dispose of the previous disposable when swapping innerDisposable",
    // inverted: the contract keeps RAC's semantics, so neither replaced one is disposed.
    @Test func replacingTheInnerDisposableDoesNotDisposeTheOldOne() {
        let old = ActionDisposable()
        let new = ActionDisposable()
        let serial = SerialDisposable()
        serial.disposable = old

        serial.disposable = new
        #expect(!old.isDisposed)
        #expect(!new.isDisposed)
        #expect(!serial.isDisposed)

        serial.disposable = nil
        #expect(!new.isDisposed)
        #expect(!serial.isDisposed)
    }

    @Test func swapReturnsNilAndDisposesTheNewOneOnceDisposed() {
        let first = ActionDisposable()
        let serial = SerialDisposable(first)
        serial.dispose()

        let late = ActionDisposable()
        #expect(serial.swap(late) == nil)
        #expect(late.isDisposed)
        #expect(serial.swap(nil) == nil)
        #expect(serial.disposable == nil)
    }

    @Test func swapReturnsEachPreviousInnerDisposableInTurn() {
        let a = ActionDisposable()
        let b = ActionDisposable()
        let serial = SerialDisposable()
        #expect(serial.swap(a) == nil)
        #expect(serial.swap(b) === a)
        #expect(serial.swap(nil) === b)
        #expect(serial.disposable == nil)
        #expect(![a, b].contains { $0.isDisposed })
    }

    @Test func disposesItsInnerDisposableOnlyOnce() {
        let spy = SpyDisposable()
        let serial = SerialDisposable(spy)
        serial.dispose()
        serial.dispose()
        #expect(spy.disposeCount == 1)
    }

    @Test func disposingWithNoInnerDisposableMarksItDisposed() {
        let serial = SerialDisposable()
        serial.dispose()
        #expect(serial.isDisposed)
        #expect(serial.disposable == nil)
    }
}
