#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every run-time lookup of a symbol in this package goes through here (the TSan annotations in
/// ``Lock``, the Swift runtime's hooks in Schedulers), so that each caller's "symbol absent"
/// branch can be tested.
///
/// Such a symbol is not API: a runtime, a sanitizer or a platform may not export it, and each
/// caller says what it does then (a documented fallback, or a message that names the symbol).
/// A test cannot remove a symbol from the process, so in DEBUG builds a name listed in the
/// environment variable ``hideVariable`` (comma-separated, read at each lookup) is reported as
/// absent. Release builds never read the variable.
package enum RuntimeSymbol {
    /// `SCHEDULERS_HIDE_RUNTIME_SYMBOLS`: in DEBUG builds, the names to treat as absent,
    /// separated by commas, e.g. `swift_task_enqueueGlobal_hook,__tsan_acquire`.
    package static let hideVariable = "SCHEDULERS_HIDE_RUNTIME_SYMBOLS"

    /// The address of the exported symbol `name` in any image loaded into the process
    /// (`dlsym(RTLD_DEFAULT, name)`), or nil when no image exports it (or, in DEBUG builds, when
    /// ``hideVariable`` lists it).
    ///
    /// Callers look a symbol up once and keep the result: `dlsym` walks the symbol tables of
    /// every loaded image.
    package static func address(of name: String) -> UnsafeMutableRawPointer? {
        #if DEBUG
        if isHidden(name) { return nil }
        #endif
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT on Darwin
        #else
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT on glibc and musl
        #endif
        return dlsym(everywhere, name)
    }

    #if DEBUG
    /// Whether ``hideVariable`` lists `name`.
    package static func isHidden(_ name: String) -> Bool {
        guard let list = getenv(hideVariable) else { return false }
        // Symbol names hold no spaces, so spaces around the commas are ignored.
        return String(cString: list).split(separator: ",").contains { $0.filter { $0 != " " } == name }
    }
    #endif
}
