import Disposables
import Testing
import TestSupport

/// ReactiveSwift's BagSpec, RxSwift's BagTest and the contract's `Bag` sentences.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct BagTests {
    // ReactiveSwift: "should insert values".
    @Test func insertsValues() {
        var bag = Bag<String>()
        bag.insert("foo")
        bag.insert("bar")
        bag.insert("buzz")

        #expect(bag.contains("foo"))
        #expect(bag.contains("bar"))
        #expect(bag.contains("buzz"))
        #expect(!bag.contains("fuzz"))
        #expect(!bag.contains("foobar"))
    }

    // ReactiveSwift: "should remove values given the token from insertion".
    @Test func removesValuesGivenTheTokenFromInsertion() {
        var bag = Bag<String>()
        let a = bag.insert("foo")
        let b = bag.insert("bar")
        let c = bag.insert("buzz")

        #expect(bag.remove(b) == "bar")
        #expect(Array(bag) == ["foo", "buzz"])
        #expect(bag.remove(a) == "foo")
        #expect(Array(bag) == ["buzz"])
        #expect(bag.remove(c) == "buzz")
        #expect(Array(bag) == [])
    }

    @Test func iteratesInInsertionOrder() {
        var bag = Bag<Int>()
        for value in [5, 3, 9, 1, 7, 3] { bag.insert(value) }
        #expect(Array(bag) == [5, 3, 9, 1, 7, 3])
    }

    @Test func keepsInsertionOrderAcrossRemovals() {
        var bag = Bag<Int>()
        let tokens = (0..<100).map { bag.insert($0) }
        for token in tokens where tokens.firstIndex(of: token)! % 3 == 0 {
            bag.remove(token)
        }
        bag.insert(1000)
        #expect(Array(bag) == (0..<100).filter { $0 % 3 != 0 } + [1000])
    }

    @Test func removingTwiceReturnsNilTheSecondTime() {
        var bag = Bag<String>()
        let token = bag.insert("once")
        bag.insert("other")
        #expect(bag.remove(token) == "once")
        #expect(bag.remove(token) == nil)
        #expect(Array(bag) == ["other"])
        #expect(bag.count == 1)
    }

    @Test func aForeignTokenRemovesNothing() {
        var mine = Bag<String>()
        var theirs = Bag<String>()
        mine.insert("mine")
        let foreign = theirs.insert("theirs")

        #expect(mine.remove(foreign) == nil)
        #expect(Array(mine) == ["mine"])
        #expect(Array(theirs) == ["theirs"])
    }

    @Test func tokensFromEqualPositionsInDifferentBagsDiffer() {
        var first = Bag<Int>()
        var second = Bag<Int>()
        #expect(first.insert(1) != second.insert(1))
    }

    @Test func tokensAreNeverReusedEvenAfterRemoveAll() {
        var bag = Bag<String>()
        let old = bag.insert("old")
        bag.removeAll()
        let new = bag.insert("new")

        #expect(old != new)
        #expect(bag.remove(old) == nil)
        #expect(Array(bag) == ["new"])
        #expect(bag.remove(new) == "new")
    }

    @Test func tokensAreDistinctAndHashable() {
        var bag = Bag<Int>()
        let tokens = (0..<1000).map { bag.insert($0) }
        #expect(Set(tokens).count == 1000)

        var byToken: [Bag<Int>.Token: Int] = [:]
        for (value, token) in zip(0..., tokens) { byToken[token] = value }
        for token in tokens.prefix(10) { bag.remove(token) }
        let later = (0..<10).map { bag.insert(1000 + $0) }
        #expect(Set(tokens).isDisjoint(with: later), "a removed token's slot is not reissued")
        #expect(byToken[tokens[500]] == 500)
    }

    @Test func countsItsElements() {
        var bag = Bag<Int>()
        #expect(bag.isEmpty)
        #expect(bag.count == 0)

        let first = bag.insert(1)
        let second = bag.insert(2)
        #expect(!bag.isEmpty)
        #expect(bag.count == 2)

        bag.remove(first)
        #expect(bag.count == 1)
        bag.remove(first)
        #expect(bag.count == 1, "a stale token changes nothing")
        bag.remove(second)
        #expect(bag.isEmpty)
        #expect(bag.count == 0)

        bag.insert(3)
        bag.insert(4)
        bag.removeAll()
        #expect(bag.isEmpty)
        #expect(bag.count == 0)
        #expect(Array(bag) == [])
    }

    @Test func hasValueSemantics() {
        var original = Bag<String>()
        let a = original.insert("a")
        let b = original.insert("b")

        var copy = original
        copy.insert("c")
        #expect(copy.remove(a) == "a")
        #expect(Array(original) == ["a", "b"], "mutating the copy leaves the original alone")
        #expect(Array(copy) == ["b", "c"])

        #expect(original.remove(b) == "b")
        #expect(Array(original) == ["a"])
        #expect(Array(copy) == ["b", "c"], "mutating the original leaves the copy alone")

        original.removeAll()
        #expect(copy.count == 2)
    }

    @Test func aTokenIssuedByACopyIsForeignToTheOriginal() {
        var original = Bag<String>()
        let shared = original.insert("shared")
        var copy = original
        let mine = original.insert("original's")
        let theirs = copy.insert("copy's")

        #expect(mine != theirs, "two bags issued the same token for different elements")
        #expect(original.remove(theirs) == nil)
        #expect(Array(original) == ["shared", "original's"])
        #expect(copy.remove(mine) == nil)
        #expect(Array(copy) == ["shared", "copy's"])
        #expect(copy.remove(shared) == "shared", "a token issued before the copy is valid in both")
        #expect(original.remove(shared) == "shared")
    }

    @Test func iteratesASnapshotWhileTheBagIsMutated() {
        // RxSwift: testBag_immutableForeach. Elements mutate the bag they are iterated from.
        for breakAt in 0..<50 {
            let box = BagBox()
            var calls = 0
            for _ in 0..<50 {
                box.bag.insert {
                    if calls == breakAt { box.bag.removeAll() }
                    calls += 1
                }
            }
            for action in box.bag { action() }
            #expect(calls == 50)
            #expect(box.bag.isEmpty)
        }
    }

    // RxSwift: testBag_deletionsFromStart and testBag_deletionsFromEnd.
    @Test(arguments: [true, false])
    func countsWhatIsLeftAfterDeletions(fromStart: Bool) {
        for inserted in 0..<50 {
            for deleted in 0...inserted {
                var bag = Bag<Int>()
                let tokens = (0..<inserted).map { bag.insert($0) }
                let doomed = fromStart ? tokens.prefix(deleted) : tokens.suffix(deleted)
                for token in doomed { #expect(bag.remove(token) != nil) }

                let expected = fromStart ? Array(deleted..<inserted) : Array(0..<(inserted - deleted))
                #expect(bag.count == inserted - deleted)
                #expect(Array(bag) == expected)
            }
        }
    }

    // RxSwift: testBag_removeAll.
    @Test func removeAllLeavesNothingToIterate() {
        let runs = Counter()
        var bag = Bag<ActionDisposable>()
        for _ in 0..<100 { bag.insert(ActionDisposable { runs.increment() }) }
        bag.removeAll()
        for disposable in bag { disposable.dispose() }
        #expect(runs.value == 0)
    }

    // RxSwift: testBag_complexityTestFromFront / FromEnd, at 100,000 (O(1) removal: no timing
    // assertion, but a quadratic removal would not finish in reasonable time).
    @Test(arguments: ["front", "end", "random"])
    func removes100000TokensQuickly(order: String) {
        var bag = Bag<Int>()
        let tokens = (0..<100_000).map { bag.insert($0) }
        var random = SeededRandom(seed: 42)
        let removalOrder =
            switch order {
            case "front": tokens
            case "end": Array(tokens.reversed())
            default: tokens.shuffled(using: &random)
            }
        var removed = 0
        for token in removalOrder where bag.remove(token) != nil { removed += 1 }
        #expect(removed == 100_000)
        #expect(bag.isEmpty)
    }

    @Test func underestimatedCountIsTheCount() {
        var bag = Bag<Int>()
        let token = bag.insert(1)
        bag.insert(2)
        bag.remove(token)
        #expect(bag.underestimatedCount == 1)
    }
}

/// A reference to a bag, so that an element's closure can mutate the bag it is iterated from.
private final class BagBox {
    var bag = Bag<() -> Void>()
}
