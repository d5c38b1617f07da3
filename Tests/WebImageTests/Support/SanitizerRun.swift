import Foundation
import Testing

/// Whether this test process runs under a sanitizer (`make tsan` / `make asan` set
/// `WEBIMAGE_SANITIZER`), so tests can allow for the slowdown or skip what cannot run instrumented.
enum SanitizerRun {
    /// `thread`, `address`, or nil for a plain run.
    static let name: String? = ProcessInfo.processInfo.environment["WEBIMAGE_SANITIZER"].flatMap { $0.isEmpty ? nil : $0 }

    /// How much longer to allow for network timeouts: instrumented code runs several times slower.
    static var slowdown: Double { name == nil ? 1 : 10 }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test whose timing margins an instrumented run cannot meet (ThreadSanitizer slows the
    /// code and the loopback origin several times over); the plain suite still runs it.
    static var timingBoundUnderSanitizer: Self {
        .disabled(if: SanitizerRun.name != nil, "timing margins too tight for an instrumented run")
    }
}
