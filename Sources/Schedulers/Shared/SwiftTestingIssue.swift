@_spi(SchedulersInternal) import Disposables

/// Records an issue for the running Swift Testing test, found at run time: the Schedulers
/// library never links the Testing framework, so it calls Testing's own public functions through
/// the addresses of their exported symbols (the way pointfree's swift-issue-reporting reaches the
/// test frameworks without linking them).
///
/// How a call is made without knowing Testing's types: Testing is built with library evolution,
/// so its public structs (`Comment`, `SourceLocation`, `Issue`, `Issue.Severity`, `Test`) are
/// resilient and every public function takes and returns them indirectly, by address. A generic
/// parameter is passed the same way. So each function is called through a `@convention(thin)`
/// function type whose Testing types are generic parameters, bound at run time to the real
/// types, read from Testing's metadata accessors: Swift then sizes, copies and destroys each
/// value through the real type's own metadata, and nothing here assumes a layout. The values are
/// made by Testing itself (`Comment(rawValue:)`, `SourceLocation(fileID:filePath:line:column:)`);
/// a function type states each parameter's ownership as the real function takes it (an
/// initializer consumes its arguments, other functions borrow them). The only byte-level
/// assumption is that `Issue.Severity`, a one-byte enum without payloads, holds
/// its case's tag, read from the case's exported tag constant.
///
/// Every symbol named here was checked with `nm -D` on the toolchain's `libTesting.so` (Swift
/// 6.3.1; `Issue.record(_:severity:sourceLocation:)` arrived with Swift Testing 6.3).
/// `TestIssueReporterTests` checks that each is found and that an issue lands in the test that
/// records it.
enum SwiftTestingIssue {
    /// Whether the calling task runs a Swift Testing test (`Test.current` is not nil): an issue
    /// recorded elsewhere would belong to no test.
    static var isRunningTest: Bool {
        guard let symbols = Symbols.resolved else { return false }
        return symbols.isRunningTest()
    }

    /// Records an issue with `comment` for the running test, failing it unless `isWarning`, and
    /// returns whether it could. Call only where ``isRunningTest`` is true.
    ///
    /// - Parameter atTheTest: attribute the issue to the running test's own declaration instead
    ///   of the given location, which is then a file of the package: a report about the test's
    ///   world points at the test, not at the line of the package that noticed it.
    static func record(
        _ comment: String, isWarning: Bool, fileID: String, filePath: String, line: Int, column: Int,
        atTheTest: Bool = false
    ) -> Bool {
        guard let symbols = Symbols.resolved else { return false }
        return symbols.record(
            comment, isWarning: isWarning,
            location: (fileID.contains("/") ? fileID : "Schedulers/" + fileID, filePath, max(line, 1), max(column, 1)),
            atTheTest: atTheTest)
    }

    /// Testing's functions and types, looked up once.
    private struct Symbols: @unchecked Sendable {
        static let resolved = Symbols()

        let testType: Any.Type
        let commentType: Any.Type
        let severityType: Any.Type
        let sourceLocationType: Any.Type
        let issueType: Any.Type
        let currentTest: UnsafeMutableRawPointer
        let makeComment: UnsafeMutableRawPointer
        let makeSourceLocation: UnsafeMutableRawPointer
        let recordIssue: UnsafeMutableRawPointer
        let warningTag: UInt8
        let errorTag: UInt8

        private init?() {
            guard let testType = Self.type("$s7Testing4TestVMa"),
                let commentType = Self.type("$s7Testing7CommentVMa"),
                let severityType = Self.type("$s7Testing5IssueV8SeverityOMa"),
                let sourceLocationType = Self.type("$s7Testing14SourceLocationVMa"),
                let issueType = Self.type("$s7Testing5IssueVMa"),
                let currentTest = RuntimeSymbol.address(of: "$s7Testing4TestV7currentACSgvgZ"),
                let makeComment = RuntimeSymbol.address(of: "$s7Testing7CommentV8rawValueACSS_tcfC"),
                let makeSourceLocation = RuntimeSymbol.address(
                    of: "$s7Testing14SourceLocationV6fileID0D4Path4line6columnACSS_SSS2itcfC"),
                let recordIssue = RuntimeSymbol.address(
                    of: "$s7Testing5IssueV6record_8severity14sourceLocationAcA7CommentVSg_AC8SeverityOAA06SourceF0VtFZ"),
                let warning = RuntimeSymbol.address(of: "$s7Testing5IssueV8SeverityO7warningyA2EmFWC"),
                let error = RuntimeSymbol.address(of: "$s7Testing5IssueV8SeverityO5erroryA2EmFWC")
            else { return nil }
            // An enum case's exported constant holds its tag (an `Int32`); a one-byte enum
            // without payloads stores that tag as its value.
            let warningTag = warning.load(as: Int32.self)
            let errorTag = error.load(as: Int32.self)
            guard (0..<256).contains(warningTag), (0..<256).contains(errorTag),
                Self.size(of: severityType) == 1
            else { return nil }
            self.testType = testType
            self.commentType = commentType
            self.severityType = severityType
            self.sourceLocationType = sourceLocationType
            self.issueType = issueType
            self.currentTest = currentTest
            self.makeComment = makeComment
            self.makeSourceLocation = makeSourceLocation
            self.recordIssue = recordIssue
            self.warningTag = UInt8(warningTag)
            self.errorTag = UInt8(errorTag)
        }

        /// The type whose metadata accessor is `accessor`: a non-generic type's accessor takes
        /// a metadata request (0: complete) and returns the metadata and its state.
        private static func type(_ accessor: String) -> Any.Type? {
            guard let address = RuntimeSymbol.address(of: accessor) else { return nil }
            typealias Accessor = @convention(thin) (Int) -> (UnsafeRawPointer?, Int)
            guard let metadata = unsafeBitCast(address, to: Accessor.self)(0).0 else { return nil }
            return unsafeBitCast(metadata, to: Any.Type.self)
        }

        private static func size(of type: Any.Type) -> Int {
            func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
            return size(type)
        }

        func isRunningTest() -> Bool {
            func current<T>(_: T.Type) -> Bool {
                // `static var current: Test? { get }`: a static getter of a struct takes no self.
                let getter = unsafeBitCast(currentTest, to: (@convention(thin) () -> T?).self)
                return getter() != nil
            }
            return current(testType)
        }

        /// The running test's `sourceLocation`, read by reflection: it is a stored property of
        /// `Test`, and its getter takes `self` in the context register, which a thin function
        /// type cannot pass.
        private func currentTestLocation<T, L>(_: T.Type, _: L.Type) -> L? {
            let getter = unsafeBitCast(currentTest, to: (@convention(thin) () -> T?).self)
            guard let test = getter() else { return nil }
            return Mirror(reflecting: test).children.first { $0.label == "sourceLocation" }?.value as? L
        }

        func record(
            _ comment: String, isWarning: Bool, location: (fileID: String, filePath: String, line: Int, column: Int),
            atTheTest: Bool
        ) -> Bool {
            func record<C, S, L, I, T>(_: C.Type, _: S.Type, _: L.Type, _: I.Type, _: T.Type) -> Bool {
                // `Comment.init(rawValue: String)`. An initializer consumes its arguments.
                let makeComment = unsafeBitCast(self.makeComment, to: (@convention(thin) (consuming String) -> C).self)
                // `SourceLocation.init(fileID: String, filePath: String, line: Int, column: Int)`
                let makeSourceLocation = unsafeBitCast(
                    self.makeSourceLocation,
                    to: (@convention(thin) (consuming String, consuming String, Int, Int) -> L).self)
                // `static func Issue.record(_: Comment?, severity: Issue.Severity, sourceLocation: SourceLocation) -> Issue`
                let recordIssue = unsafeBitCast(self.recordIssue, to: (@convention(thin) (C?, S, L) -> I).self)
                let tag = isWarning ? warningTag : errorTag
                let severity = withUnsafeBytes(of: tag) { $0.load(as: S.self) }
                let testLocation = atTheTest ? currentTestLocation(T.self, L.self) : nil
                _ = recordIssue(
                    makeComment(comment), severity,
                    testLocation ?? makeSourceLocation(location.fileID, location.filePath, location.line, location.column))
                return true
            }
            return record(commentType, severityType, sourceLocationType, issueType, testType)
        }
    }
}
