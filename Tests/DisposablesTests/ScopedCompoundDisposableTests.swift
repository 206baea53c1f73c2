import Disposables
import Testing
import TestSupport

/// `ScopedCompoundDisposable` (RxSwift's `DisposeBag` habit) and `disposed(by:)`.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct ScopedCompoundDisposableTests {
    /// Going out of scope disposes every child, once each, and releases them.
    @Test func deinitDisposesEveryChildOnce() {
        let first = SpyDisposable()
        let second = SpyDisposable()
        let weakBag: Weak<ScopedCompoundDisposable>
        do {
            let bag = ScopedCompoundDisposable()
            weakBag = Weak(bag)
            bag.add(first)
            second.disposed(by: bag)
            #expect(first.disposeCount == 0)
            #expect(second.disposeCount == 0)
        }
        #expect(weakBag.object == nil)
        #expect(first.disposeCount == 1)
        #expect(second.disposeCount == 1)
    }

    /// Replacing the bag, the `DisposeBag` way to drop every subscription, disposes the old one's.
    @Test func replacingTheBagDisposesTheOldChildren() {
        let old = SpyDisposable()
        var bag = ScopedCompoundDisposable()
        old.disposed(by: bag)
        bag = ScopedCompoundDisposable()
        #expect(old.disposeCount == 1)
        #expect(!bag.isDisposed)
    }

    /// An explicit dispose disposes the children; the deinit afterwards does not again.
    @Test func disposeThenDeinitDisposesOnce() {
        let child = SpyDisposable()
        do {
            let bag = ScopedCompoundDisposable([child])
            bag.dispose()
            #expect(bag.isDisposed)
            #expect(child.disposeCount == 1)
            bag.dispose()
            #expect(child.disposeCount == 1)
        }
        #expect(child.disposeCount == 1)
    }

    /// Adding to a disposed bag disposes the argument at once; nil and disposed ones are ignored.
    @Test func addAfterDisposeDisposesAtOnce() {
        let bag = ScopedCompoundDisposable()
        bag.add(nil)
        bag.dispose()
        let late = SpyDisposable()
        late.disposed(by: bag)
        #expect(late.disposeCount == 1)
        let alreadyDisposed = SpyDisposable(disposed: true)
        bag.add(alreadyDisposed)
        #expect(alreadyDisposed.disposeCount == 1)
    }

    /// A removed child is neither disposed by the removal nor by the bag's deinit.
    @Test func removeTakesAChildOutWithoutDisposingIt() {
        let kept = SpyDisposable()
        let removed = SpyDisposable()
        do {
            let bag = ScopedCompoundDisposable([kept, removed])
            bag.remove(removed)
            #expect(removed.disposeCount == 0)
        }
        #expect(kept.disposeCount == 1)
        #expect(removed.disposeCount == 0)
    }

    /// `disposed(by:)` with a plain CompoundDisposable is `add`: disposed with it, and at once
    /// when it is already disposed.
    @Test func disposedByACompoundDisposable() {
        let compound = CompoundDisposable()
        let child = ActionDisposable()
        child.disposed(by: compound)
        #expect(!child.isDisposed)
        compound.dispose()
        #expect(child.isDisposed)

        let late = ActionDisposable()
        late.disposed(by: compound)
        #expect(late.isDisposed)
    }
}
