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
    /// Skips tests that spawn the `webimage` CLI under a sanitizer: the child is instrumented too,
    /// and ThreadSanitizer's false reports on `Synchronization.Mutex` (see docs/RELIABILITY.md)
    /// make it exit with status 66.
    static var spawnsTheCLI: Self {
        .disabled(if: SanitizerRun.name != nil, "spawns the instrumented CLI under WEBIMAGE_SANITIZER")
    }
}
