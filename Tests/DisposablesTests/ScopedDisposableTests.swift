import Disposables
import Testing
import TestSupport

/// RACDisposableSpec's scoped case, ReactiveSwift's ScopedDisposable spec and `asScoped()`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ScopedDisposableTests {
    // RAC: "should create a scoped disposable".
    @Test func disposesUponDeinit() {
        let runs = Counter()
        let weakScoped: Weak<ScopedDisposable>
        do {
            let scoped = ScopedDisposable(ActionDisposable { runs.increment() })
            weakScoped = Weak(scoped)
            #expect(weakScoped.object != nil)
            #expect(runs.value == 0)
        }
        #expect(weakScoped.object == nil)
        #expect(runs.value == 1)
    }

    // ReactiveSwift: "should dispose of the inner disposable upon deinitialization".
    @Test func disposesTheWrappedDisposableWhenItGoesOutOfScope() {
        let simple = ActionDisposable()
        func runScoped() {
            let scoped = ScopedDisposable(simple)
            #expect(!simple.isDisposed)
            #expect(!scoped.isDisposed)
        }
        #expect(!simple.isDisposed)

        runScoped()
        #expect(simple.isDisposed)
    }

    // ReactiveSwift: "should be initialized with an instance of `Disposable` protocol type".
    @Test func wrapsAnExistentialDisposable() {
        let wrapped: any Disposable = CompoundDisposable()
        do {
            let scoped = ScopedDisposable(wrapped)
            #expect(!scoped.isDisposed)
        }
        #expect(wrapped.isDisposed)
    }

    @Test func mayBeDisposedEarly() {
        let runs = Counter()
        do {
            let scoped = ScopedDisposable(ActionDisposable { runs.increment() })
            scoped.dispose()
            #expect(scoped.isDisposed)
            #expect(runs.value == 1)
        }
        #expect(runs.value == 1, "deinit after an early dispose runs nothing more")
    }

    // A user-defined disposable need not be idempotent; the scoped one disposes it once
    // however often it is disposed, and not again at deinit.
    @Test func disposesANonIdempotentDisposableOnceAcrossDisposeCallsAndDeinit() {
        let spy = SpyDisposable()
        do {
            let scoped = ScopedDisposable(spy)
            scoped.dispose()
            scoped.dispose()
            #expect(scoped.isDisposed)
            #expect(spy.disposeCount == 1)
        }
        #expect(spy.disposeCount == 1, "deinit after explicit disposal disposes nothing more")
    }

    @Test func disposesANonIdempotentDisposableOnceAtDeinitAlone() {
        let spy = SpyDisposable()
        do { _ = ScopedDisposable(spy) }
        #expect(spy.disposeCount == 1)
    }

    @Test func concurrentDisposeCallsDisposeTheWrappedOneOnce() async {
        for _ in 0..<200 {
            let spy = SpyDisposable()
            let scoped = ScopedDisposable(spy)
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { scoped.dispose() } }
            }
            #expect(spy.disposeCount == 1)
        }
    }

    @Test func reportsTheWrappedDisposablesState() {
        let wrapped = ActionDisposable()
        let scoped = ScopedDisposable(wrapped)
        #expect(!scoped.isDisposed)
        wrapped.dispose()
        #expect(scoped.isDisposed)
    }

    @Test func asScopedReturnsTheSameScopedDisposable() {
        let scoped = ScopedDisposable(ActionDisposable())
        #expect(scoped.asScoped() === scoped)

        let existential: any Disposable = scoped
        #expect(existential.asScoped() === scoped)
    }

    @Test func asScopedWrapsAnyOtherDisposable() {
        let runs = Counter()
        let action = ActionDisposable { runs.increment() }
        do {
            let scoped = action.asScoped()
            #expect(!scoped.isDisposed)
            #expect(runs.value == 0)
        }
        #expect(runs.value == 1)
        #expect(action.isDisposed)
    }

    @Test func asScopedOnACompoundDisposesItsChildrenAtDeinit() {
        let child = ActionDisposable()
        do {
            let scoped = CompoundDisposable([child]).asScoped()
            #expect(!scoped.isDisposed)
        }
        #expect(child.isDisposed)
    }
}
