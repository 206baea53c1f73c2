import Foundation
import Testing
import TestSupport

// Every ```swift block in README.md and in the DocC catalogs (Sources/*/*.docc) is a copy of a
// snippet region in a test, so it compiles and runs: a region is the lines between
//
//     // snippet: some-name
//     …
//     // snippet: end
//
// in any Swift file under Tests/, Integrations/ or Examples/, compared after removing the
// common indentation of each side (so a region may sit inside a test function). A few files are
// regions as a whole (see `wholeFileRegions`): a manifest cannot start with a marker. Blocks in
// other languages (`objc`, `sh`, `text`) are not compiled; a block with no language is refused,
// since DocC would show it as Swift. Edit a snippet in its test, then paste it into the page.

/// Where snippet regions and pages are looked for, relative to the repository root.
private enum SnippetSources {
    static let pageRoots = ["README.md", "Sources"]
    static let regionRoots = ["Tests", "Integrations", "Examples"]
    /// Files that are a snippet from their first line to their last.
    static let wholeFileRegions = [
        "Examples/Client/Package.swift",
        "Examples/Client/Sources/Client/main.swift",
    ]
    /// DocC's code column is about 78 characters wide; Scripts/build-docs.sh makes longer lines
    /// wrap rather than lose their ends, and this bound keeps wrapping from happening at all in
    /// a desktop browser (README.md too, which GitHub shows wider).
    static let maximumLineLength = 76
}

private struct CodeBlock {
    let page: String
    let line: Int
    let language: String
    let text: String
}

@Suite(.ownThread, .timeLimit(.minutes(5))) struct DocumentationSnippetTests {
    private let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // DocumentationExamples
        .deletingLastPathComponent()   // SchedulersTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()

    /// Every Swift block on a page equals a snippet region, and every region is on a page.
    @Test func everySwiftBlockIsATestedSnippet() throws {
        let regions = try snippetRegions()
        let blocks = try codeBlocks()
        #expect(blocks.count > 30, "found only \(blocks.count) code blocks: is the root right?")
        var used = Set<String>()
        for block in blocks where block.language == "swift" {
            let matches = regions.filter { $0.value == block.text }.map(\.key)
            used.formUnion(matches)
            #expect(
                !matches.isEmpty,
                """
                \(block.page):\(block.line): this swift block is no snippet region of a test; \
                copy it from its test (nearest region: \(nearest(block.text, in: regions))):
                \(block.text)
                """
            )
        }
        for name in regions.keys.sorted() where !used.contains(name) {
            Issue.record("snippet region \(name) appears on no page: remove its markers or show it")
        }
    }

    /// A block says its language; only Swift is compiled, so anything else is labelled as such.
    @Test func everyBlockNamesItsLanguage() throws {
        for block in try codeBlocks() {
            #expect(
                !block.language.isEmpty,
                "\(block.page):\(block.line): name the block's language (swift, objc, sh, text)"
            )
        }
    }

    /// Code lines fit the page: DocC cuts, rather than wraps, a line that is too long.
    @Test func codeLinesFitThePage() throws {
        for block in try codeBlocks() {
            for (offset, line) in block.text.split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated() where line.count > SnippetSources.maximumLineLength {
                Issue.record(
                    """
                    \(block.page):\(block.line + 1 + offset): \(line.count) characters, more than \
                    \(SnippetSources.maximumLineLength): \(line)
                    """
                )
            }
        }
    }

    /// Headings, topic groups included, are for readers: they name concepts, not source files
    /// (DocC shows them in the sidebar and on every page that lists the group).
    @Test func headingsNameNoSourceFiles() throws {
        let pages = files(under: "Sources", extension: "md").filter { $0.contains(".docc/") }
        #expect(!pages.isEmpty)
        for page in pages {
            var inCode = false
            for (index, line) in try read(page).split(separator: "\n", omittingEmptySubsequences: false)
                .enumerated() {
                if line.drop(while: { $0 == " " }).hasPrefix("```") { inCode.toggle() }
                guard !inCode, line.hasPrefix("#") else { continue }
                #expect(
                    !line.contains(".swift"),
                    "\(page):\(index + 1): a heading names a source file: \(line)"
                )
            }
        }
    }

    // MARK: Reading pages and regions

    private func files(under relative: String, extension ext: String) -> [String] {
        let start = root.appendingPathComponent(relative)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: start.path, isDirectory: &isDirectory) else { return [] }
        if !isDirectory.boolValue { return [relative] }
        guard let walker = FileManager.default.enumerator(atPath: start.path) else { return [] }
        var found: [String] = []
        for case let path as String in walker {
            // Build folders of nested packages hold checkouts of other packages.
            if path.split(separator: "/").contains(where: { $0.hasPrefix(".build") }) { continue }
            if path.hasSuffix(".\(ext)") { found.append("\(relative)/\(path)") }
        }
        return found.sorted()
    }

    private func read(_ relative: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The Markdown pages: README.md and every article and extension file of a DocC catalog.
    private func codeBlocks() throws -> [CodeBlock] {
        let pages = SnippetSources.pageRoots.flatMap { files(under: $0, extension: "md") }
            .filter { $0 == "README.md" || $0.contains(".docc/") }
        var blocks: [CodeBlock] = []
        for page in pages {
            let lines = try read(page).split(separator: "\n", omittingEmptySubsequences: false)
            var open: (line: Int, fence: String, language: String, body: [Substring])?
            for (index, line) in lines.enumerated() {
                let trimmed = line.drop { $0 == " " }
                if var current = open {
                    if trimmed.hasPrefix(current.fence), trimmed.allSatisfy({ $0 == "`" }) {
                        blocks.append(CodeBlock(
                            page: page, line: current.line, language: current.language,
                            text: dedented(current.body)))
                        open = nil
                    } else {
                        current.body.append(line)
                        open = current
                    }
                } else if trimmed.hasPrefix("```") {
                    let fence = String(trimmed.prefix { $0 == "`" })
                    let language = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
                    open = (index + 1, fence, language, [])
                }
            }
            #expect(open == nil, "\(page): a code block is never closed")
        }
        return blocks
    }

    /// Every region, by name (a whole-file region is named after its file).
    private func snippetRegions() throws -> [String: String] {
        var regions: [String: String] = [:]
        for file in SnippetSources.wholeFileRegions {
            var text = try read(file)
            if text.hasSuffix("\n") { text.removeLast() }
            regions[file] = text
        }
        for file in SnippetSources.regionRoots.flatMap({ files(under: $0, extension: "swift") }) {
            let lines = try read(file).split(separator: "\n", omittingEmptySubsequences: false)
            var open: (name: String, line: Int, body: [Substring])?
            for (index, line) in lines.enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.hasPrefix("// snippet:") else {
                    open?.body.append(line)
                    continue
                }
                let name = trimmed.dropFirst("// snippet:".count).trimmingCharacters(in: .whitespaces)
                if name == "end" {
                    guard let region = open else {
                        Issue.record("\(file):\(index + 1): a snippet end with no start")
                        continue
                    }
                    #expect(regions[region.name] == nil, "\(file):\(region.line): snippet \(region.name) twice")
                    regions[region.name] = dedented(region.body)
                    open = nil
                } else {
                    #expect(open == nil, "\(file):\(index + 1): snippet \(name) starts inside another")
                    open = (name, index + 1, [])
                }
            }
            #expect(open == nil, "\(file): snippet \(open?.name ?? "") never ends")
        }
        return regions
    }

    /// The lines joined, without the indentation they all share.
    private func dedented(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.allSatisfy(\.isWhitespace) }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { $0.allSatisfy(\.isWhitespace) ? "" : String($0.dropFirst(indent)) }
            .joined(separator: "\n")
    }

    /// The region sharing the most lines with `text`, to say where a drifted block came from.
    private func nearest(_ text: String, in regions: [String: String]) -> String {
        let lines = Set(text.split(separator: "\n"))
        let best = regions.max { left, right in
            lines.intersection(left.value.split(separator: "\n")).count
                < lines.intersection(right.value.split(separator: "\n")).count
        }
        guard let best, !lines.intersection(best.value.split(separator: "\n")).isEmpty else { return "none" }
        return best.key
    }
}
