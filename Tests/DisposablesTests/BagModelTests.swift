import Disposables
import Testing
import TestSupport

/// Random interleavings of insert, remove (live, stale and foreign tokens) and removeAll, checked
/// step by step against a plain array of (token, value) pairs.
@Suite(.ownThread, .timeLimit(.minutes(5))) struct BagModelTests {
    @Test(arguments: [1, 2, 3, 0xDEAD_BEEF, 0x5EED_0F_BA6] as [UInt64])
    func behavesLikeAnArrayOfTokenValuePairs(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var bag = Bag<Int>()
        var model: [(token: Bag<Int>.Token, value: Int)] = []
        var stale: [Bag<Int>.Token] = []
        var staleSet: Set<Bag<Int>.Token> = []
        var foreignBag = Bag<Int>()
        let foreign = (0..<8).map { foreignBag.insert($0) }
        var nextValue = 0

        for step in 0..<5_000 {
            let roll = Int.random(in: 0..<100, using: &random)
            switch roll {
            case 0..<50:
                let token = bag.insert(nextValue)
                #expect(!model.contains { $0.token == token }, "seed \(seed) step \(step)")
                #expect(!staleSet.contains(token), "a token is reused: seed \(seed) step \(step)")
                model.append((token, nextValue))
                nextValue += 1
            case 50..<85 where !model.isEmpty:
                let index = Int.random(in: 0..<model.count, using: &random)
                let (token, value) = model.remove(at: index)
                #expect(bag.remove(token) == value, "seed \(seed) step \(step)")
                stale.append(token)
                staleSet.insert(token)
            case 85..<95 where !stale.isEmpty:
                let token = stale.randomElement(using: &random)!
                #expect(bag.remove(token) == nil, "stale token: seed \(seed) step \(step)")
            case 95..<99:
                #expect(bag.remove(foreign.randomElement(using: &random)!) == nil, "seed \(seed) step \(step)")
            case 99:
                bag.removeAll()
                stale += model.map(\.token)
                staleSet.formUnion(model.map(\.token))
                model.removeAll()
            default:
                break
            }
            #expect(bag.count == model.count, "seed \(seed) step \(step)")
            #expect(bag.isEmpty == model.isEmpty, "seed \(seed) step \(step)")
            if step % 50 == 0 || bag.count < 8 {
                #expect(Array(bag) == model.map(\.value), "seed \(seed) step \(step)")
            }
        }
        #expect(Array(bag) == model.map(\.value), "seed \(seed)")
        #expect(Array(foreignBag) == Array(0..<8))
    }
}
