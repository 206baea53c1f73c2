import Disposables
import Testing
import TestSupport

/// RACCompoundDisposableSpec, ReactiveSwift's CompositeDisposable spec and RxSwift's
/// CompositeDisposable tests, against `CompoundDisposable` and its contract.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct CompoundDisposableTests {
    // RAC: "should dispose of all its contained disposables".
    @Test func disposesAllItsContainedDisposables() {
        let d1 = ActionDisposable()
        let d2 = ActionDisposable()
        let d3 = ActionDisposable()
        let d4 = ActionDisposable()
        let compound = CompoundDisposable([d1, d2, d3])
        compound.add(d4)
        #expect(![d1, d2, d3, d4].contains { $0.isDisposed })
        #expect(!compound.isDisposed)

        compound.dispose()
        #expect([d1, d2, d3, d4].allSatisfy { $0.isDisposed })
        #expect(compound.isDisposed)
    }

    // RAC: "should dispose of any added disposables immediately if it's already been disposed";
    // RxSwift: testCompositeDisposable_TestNormal (its tail).
    @Test func disposesWhatIsAddedAfterItWasDisposedImmediately() {
        let compound = CompoundDisposable()
        compound.dispose()

        let d = ActionDisposable()
        #expect(!d.isDisposed)
        compound.add(d)
        #expect(d.isDisposed)
    }

    // RAC: "should work when initialized with -init".
    @Test func worksWhenInitialisedEmpty() {
        let runs = Counter()
        let compound = CompoundDisposable()
        compound.add(ActionDisposable { runs.increment() })
        #expect(runs.value == 0)

        compound.dispose()
        #expect(runs.value == 1)
    }

    // RAC: "should work when initialized with +disposableWithBlock:" (the block becomes a child).
    @Test func worksWhenInitialisedWithAnActionChild() {
        let compoundRuns = Counter()
        let childRuns = Counter()
        let compound = CompoundDisposable([ActionDisposable { compoundRuns.increment() }])
        compound.add(ActionDisposable { childRuns.increment() })
        #expect(childRuns.value == 0)
        #expect(compoundRuns.value == 0)

        compound.dispose()
        #expect(childRuns.value == 1)
        #expect(compoundRuns.value == 1)
    }

    // RAC: "should allow disposables to be removed"; ReactiveSwift: "should not dispose of
    // removed disposables" (removing twice is allowed).
    @Test func doesNotDisposeRemovedDisposables() {
        let compound = CompoundDisposable()
        let d = ActionDisposable()
        compound.add(d)
        compound.remove(d)
        compound.remove(d)
        #expect(!d.isDisposed, "remove never disposes")

        compound.dispose()
        #expect(!d.isDisposed)
    }

    // ReactiveSwift: "should ignore the addition of nil"; the contract: `remove(nil)` too.
    @Test func ignoresNil() {
        let compound = CompoundDisposable()
        compound.add(nil)
        compound.remove(nil)
        #expect(!compound.isDisposed)
        compound.dispose()
        compound.add(nil)
        #expect(compound.isDisposed)
    }

    // ReactiveSwift: "should dispose of added disposables".
    @Test func disposesAddedDisposables() {
        let compound = CompoundDisposable()
        let simple = ActionDisposable()
        let runs = Counter()
        compound.add(simple)
        compound.add(ActionDisposable { runs.increment() })
        #expect(!simple.isDisposed)
        #expect(runs.value == 0)
        #expect(!compound.isDisposed)

        compound.dispose()
        #expect(simple.isDisposed)
        #expect(runs.value == 1)
        #expect(compound.isDisposed)
    }

    // RxSwift: testCompositeDisposable_TestInitWithNumberOfDisposables; ReactiveSwift: "should
    // create with initial disposables".
    @Test func disposesEveryInitialDisposable() {
        let runs = Counter()
        let children = (0..<5).map { _ in ActionDisposable { runs.increment() } }
        let compound = CompoundDisposable(children)
        #expect(runs.value == 0)

        compound.dispose()
        #expect(runs.value == 5)
        #expect(children.allSatisfy { $0.isDisposed })
    }

    // RxSwift: testCompositeDisposable_TestRemoving, with the contract's semantics: `remove` takes
    // a child out without disposing it (RxSwift's `remove(for:)` disposed it).
    @Test func removingOneChildLeavesTheOthersToBeDisposed() {
        let runs = Counter()
        let compound = CompoundDisposable()
        let first = ActionDisposable { runs.increment() }
        let second = ActionDisposable { runs.increment() }
        compound.add(first)
        compound.add(second)

        compound.remove(second)
        #expect(runs.value == 0)

        compound.dispose()
        #expect(runs.value == 1)
        #expect(first.isDisposed)
        #expect(!second.isDisposed)
    }

    @Test func disposesItsChildrenOnlyOnce() {
        let spy = SpyDisposable()
        let compound = CompoundDisposable([spy])
        compound.dispose()
        compound.dispose()
        #expect(spy.disposeCount == 1)
        #expect(compound.isDisposed)
    }

    @Test func addingAnAlreadyDisposedDisposableDoesNothing() {
        let compound = CompoundDisposable()
        let alreadyDisposed = SpyDisposable(disposed: true)
        compound.add(alreadyDisposed)
        compound.dispose()
        #expect(alreadyDisposed.disposeCount == 1, "not disposed a second time")

        let disposedCompound = CompoundDisposable()
        disposedCompound.dispose()
        let another = SpyDisposable(disposed: true)
        disposedCompound.add(another)
        #expect(another.disposeCount == 1, "not disposed a second time by a disposed compound")
    }

    @Test func addingAnAlreadyDisposedDisposableDoesNotRetainIt() {
        let compound = CompoundDisposable()
        let weakChild: Weak<ActionDisposable>
        do {
            let child = ActionDisposable()
            child.dispose()
            weakChild = Weak(child)
            compound.add(child)
        }
        #expect(weakChild.object == nil)
        withExtendedLifetime(compound) {}
    }

    @Test func removeTakesOutEveryOccurrence() {
        let compound = CompoundDisposable()
        let d = ActionDisposable()
        compound.add(d)
        compound.add(d)
        compound.add(d)
        compound.remove(d)

        compound.dispose()
        #expect(!d.isDisposed)
    }

    @Test func aChildAddedTwiceIsDisposed() {
        let runs = Counter()
        let d = ActionDisposable { runs.increment() }
        let compound = CompoundDisposable([d, d])
        compound.dispose()
        #expect(d.isDisposed)
        #expect(runs.value == 1)
    }

    @Test func removeComparesByIdentity() {
        let compound = CompoundDisposable()
        let kept = ActionDisposable()
        compound.add(kept)
        compound.remove(ActionDisposable())
        compound.remove(CompoundDisposable())

        compound.dispose()
        #expect(kept.isDisposed)
    }

    @Test func removeAfterDisposalDoesNothing() {
        let d = ActionDisposable()
        let compound = CompoundDisposable([d])
        compound.dispose()
        compound.remove(d)
        #expect(d.isDisposed)
        #expect(compound.isDisposed)
    }

    @Test func disposesInInsertionOrder() {
        let order = Log<Int>()
        let compound = CompoundDisposable()
        for index in 0..<200 {
            compound.add(ActionDisposable { order.append(index) })
        }
        compound.dispose()
        #expect(order.values == Array(0..<200))
    }

    @Test func aChildRemovedAndAddedAgainIsDisposedInItsNewPlace() {
        let order = Log<String>()
        let a = ActionDisposable { order.append("a") }
        let b = ActionDisposable { order.append("b") }
        let c = ActionDisposable { order.append("c") }
        let compound = CompoundDisposable([a, b, c])
        compound.remove(a)
        compound.add(a)

        compound.dispose()
        #expect(order.values == ["b", "c", "a"])
    }

    @Test func initialDisposablesComeFirstInDisposalOrder() {
        let order = Log<Int>()
        let compound = CompoundDisposable((0..<3).map { index in ActionDisposable { order.append(index) } })
        compound.add(ActionDisposable { order.append(3) })
        compound.dispose()
        #expect(order.values == [0, 1, 2, 3])
    }

    @Test func nestedCompoundsDisposeTheirChildren() {
        let leaf = ActionDisposable()
        let inner = CompoundDisposable([leaf])
        let outer = CompoundDisposable([inner])
        outer.dispose()
        #expect(inner.isDisposed)
        #expect(leaf.isDisposed)
    }

    @Test func addsAndRemoves100000ChildrenInRandomOrder() {
        let seed: UInt64 = 0xC0FF_EE00_D15E
        var random = SeededRandom(seed: seed)
        let children = (0..<100_000).map { _ in ActionDisposable() }
        let compound = CompoundDisposable()
        for child in children { compound.add(child) }
        for child in children.shuffled(using: &random) { compound.remove(child) }

        compound.dispose()
        #expect(!children.contains { $0.isDisposed }, "seed \(seed)")
        #expect(compound.isDisposed)
    }
}
