#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether ThreadSanitizer or AddressSanitizer instruments this process (`swift test
/// --sanitize=thread` or `=address`): their runtimes export these entry points.
public let isSanitized: Bool = {
    let process = dlopen(nil, RTLD_NOW)
    return dlsym(process, "__tsan_init") != nil || dlsym(process, "__asan_init") != nil
}()

/// `count` in a plain run, a tenth of it (at least 1) under a sanitizer.
///
/// The stress tests race many threads over many rounds. A sanitizer slows them 5-10x, and on
/// a 2-core machine the whole suite runs in one process, in parallel: at full size they took
/// minutes each and starved the tests beside them. Under a sanitizer a tenth of the rounds
/// still overlaps the same operations thousands of times, which is what the sanitizer needs to
/// see a race; the plain run keeps the full counts that the documentation cites.
public func stressCount(_ count: Int) -> Int {
    isSanitized ? max(1, count / 10) : count
}
