import Disposables
import Testing
import TestSupport

/// A child may dispose, add to or remove from its parent from inside its own action: the parent
/// disposes its children outside its lock (a re-entrant `Mutex` would trap).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct CompoundDisposableReentrancyTests {
    @Test func aChildMayDisposeItsParentFromItsAction() {
        let parent = CompoundDisposable()
        let runs = Counter()
        parent.add(ActionDisposable {
            runs.increment()
            parent.dispose()
        })
        let sibling = ActionDisposable()
        parent.add(sibling)

        parent.dispose()
        #expect(runs.value == 1)
        #expect(parent.isDisposed)
        #expect(sibling.isDisposed)
    }

    @Test func disposingTheChildThatDisposesItsParentDisposesTheSiblings() {
        let parent = CompoundDisposable()
        let child = ActionDisposable { parent.dispose() }
        let sibling = ActionDisposable()
        parent.add(child)
        parent.add(sibling)

        child.dispose()
        #expect(parent.isDisposed)
        #expect(sibling.isDisposed)
    }

    @Test func aChildSeesItsParentDisposedAndMayQueryItFromItsAction() {
        let parent = CompoundDisposable()
        let seen = Log<Bool>()
        parent.add(ActionDisposable { seen.append(parent.isDisposed) })
        parent.dispose()
        #expect(seen.values == [true])
    }

    @Test func aDisposableAddedToTheParentFromAChildsActionIsDisposedAtOnce() {
        let parent = CompoundDisposable()
        let late = ActionDisposable()
        let lateWasDisposedWhenAddReturned = Log<Bool>()
        parent.add(ActionDisposable {
            parent.add(late)
            lateWasDisposedWhenAddReturned.append(late.isDisposed)
        })

        parent.dispose()
        #expect(lateWasDisposedWhenAddReturned.values == [true])
    }

    @Test func aChildMayRemoveItselfFromItsParentFromItsAction() {
        let parent = CompoundDisposable()
        let holder = ChildHolder()
        let child = ActionDisposable { parent.remove(holder.child) }
        holder.child = child
        parent.add(child)

        parent.dispose()
        #expect(child.isDisposed)
        #expect(parent.isDisposed)
    }

    @Test func aSiblingContainedAtDisposalIsDisposedEvenIfRemovedDuringIt() {
        let parent = CompoundDisposable()
        let sibling = ActionDisposable()
        parent.add(ActionDisposable { parent.remove(sibling) })
        parent.add(sibling)

        parent.dispose()
        #expect(sibling.isDisposed, "it was contained when dispose() was called")
    }

    @Test func aCompoundContainingItselfDisposesOnce() {
        let compound = CompoundDisposable()
        let child = SpyDisposable()
        compound.add(compound)
        compound.add(child)

        compound.dispose()
        #expect(compound.isDisposed)
        #expect(child.disposeCount == 1)
    }

    @Test func aChildMayAddAndRemoveOnItsParentBeforeItIsDisposed() {
        // The same re-entrancy through a child that is disposed on its own, parent still live.
        let parent = CompoundDisposable()
        let added = ActionDisposable()
        let removed = ActionDisposable()
        parent.add(removed)
        let child = ActionDisposable {
            parent.add(added)
            parent.remove(removed)
        }
        parent.add(child)

        child.dispose()
        #expect(!parent.isDisposed)
        #expect(!added.isDisposed)

        parent.dispose()
        #expect(added.isDisposed)
        #expect(!removed.isDisposed)
    }
}

/// Lets an action reach the disposable it belongs to. Written once before disposal, on the test's
/// thread, and read only by the action on that same thread.
private final class ChildHolder: @unchecked Sendable {
    var child: ActionDisposable?
}
