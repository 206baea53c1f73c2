import Disposables
import Testing
import TestSupport

/// What a compound disposable retains, and when it lets go ("released at disposal" means released
/// before `dispose()` returns).
@Suite(.ownThread, .timeLimit(.minutes(5))) struct CompoundDisposableMemoryTests {
    @Test func releasesItsChildrenAtDisposal() {
        let compound = CompoundDisposable()
        var weakChildren: [Weak<ActionDisposable>] = []
        do {
            for _ in 0..<10 {
                let child = ActionDisposable()
                weakChildren.append(Weak(child))
                compound.add(child)
            }
        }
        #expect(weakChildren.allSatisfy { $0.object != nil }, "children are retained until disposal")

        compound.dispose()
        #expect(weakChildren.allSatisfy { $0.object == nil })
        withExtendedLifetime(compound) {}
    }

    @Test func releasesAChildAtRemoval() {
        let compound = CompoundDisposable()
        let weakChild: Weak<ActionDisposable>
        let weakKept: Weak<ActionDisposable>
        do {
            let child = ActionDisposable()
            let kept = ActionDisposable()
            weakChild = Weak(child)
            weakKept = Weak(kept)
            compound.add(child)
            compound.add(child)
            compound.add(kept)
            compound.remove(child)
        }
        #expect(weakChild.object == nil, "every occurrence was removed")
        #expect(weakKept.object != nil)
        withExtendedLifetime(compound) {}
    }

    @Test func releasesADisposableAddedAfterDisposal() {
        let compound = CompoundDisposable()
        compound.dispose()
        let weakLate: Weak<ActionDisposable>
        do {
            let late = ActionDisposable()
            weakLate = Weak(late)
            compound.add(late)
            #expect(late.isDisposed)
        }
        #expect(weakLate.object == nil)
        withExtendedLifetime(compound) {}
    }

    @Test func aChildCapturingItsParentDoesNotLeakOnceDisposed() {
        let weakParent: Weak<CompoundDisposable>
        let weakToken: Weak<Token>
        do {
            let parent = CompoundDisposable()
            let token = Token()
            weakParent = Weak(parent)
            weakToken = Weak(token)
            // A cycle: parent → child → action → parent, broken by disposal.
            parent.add(ActionDisposable {
                withExtendedLifetime(token) {}
                parent.dispose()
            })
            parent.dispose()
        }
        #expect(weakParent.object == nil)
        #expect(weakToken.object == nil)
    }

    @Test func doesNotOutliveItsLastReference() {
        let weakCompound: Weak<CompoundDisposable>
        let weakChild: Weak<ActionDisposable>
        do {
            let child = ActionDisposable()
            let compound = CompoundDisposable([child])
            weakCompound = Weak(compound)
            weakChild = Weak(child)
        }
        #expect(weakCompound.object == nil)
        #expect(weakChild.object == nil)
    }
}
