@testable import Disposables
import Testing
import TestSupport

/// The table `CompoundDisposable` finds its children in, by identity: random interleavings of
/// inserts, updates and removals (of present and absent objects), checked step by step against a
/// `Dictionary`, through several growths and clusters that removals shift back.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct IdentityIndexTests {
    final class Object {}

    @Test(arguments: [1, 2, 0xDEAD_BEEF] as [UInt64])
    func behavesLikeADictionary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let objects = (0..<3_000).map { _ in Object() }
        var index = IdentityIndex()
        var model: [ObjectIdentifier: Int] = [:]
        for step in 0..<40_000 {
            let key = ObjectIdentifier(objects[Int.random(in: 0..<objects.count, using: &random)])
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let added = index.insertIfAbsent(key, step)
                #expect(added == (model[key] == nil))
                if added { model[key] = step }
            case 5:
                index.set(key, step)
                model[key] = step
            default:
                let removed = index.removeValue(for: key)
                #expect(removed == model.removeValue(forKey: key))
            }
            #expect(index.count == model.count)
        }
        // Every key is still found with its value, and each removal finds it once.
        for (key, value) in model {
            let removed = index.removeValue(for: key)
            let again = index.removeValue(for: key)
            #expect(removed == value && again == nil)
        }
        #expect(index.count == 0)
    }

    @Test func removeAllEmptiesItAndItCanBeUsedAgain() {
        let objects = (0..<100).map { _ in Object() }
        var index = IdentityIndex()
        let seven = ObjectIdentifier(objects[7])
        for (slot, object) in objects.enumerated() {
            let added = index.insertIfAbsent(ObjectIdentifier(object), slot)
            #expect(added)
        }
        let addedTwice = index.insertIfAbsent(seven, 1_000)
        #expect(!addedTwice)
        index.removeAll()
        let removedAfterRemoveAll = index.removeValue(for: seven)
        #expect(index.count == 0 && removedAfterRemoveAll == nil)
        let addedAgain = index.insertIfAbsent(seven, 1)
        let removed = index.removeValue(for: seven)
        #expect(addedAgain && removed == 1)
    }
}
