import ArgumentParser
import WebImageServer

extension ServeCommand {
    /// Checks `--source-ttl`, `--freshness-floor`, `--freshness-ceiling` and `--shared-source-check`.
    func validateFreshnessOptions() throws {
        let tenYears = 10 * 365 * 86_400
        for (flag, value) in [("--source-ttl", sourceTtl), ("--freshness-floor", freshnessFloor),
                              ("--freshness-ceiling", freshnessCeiling), ("--shared-source-check", sharedSourceCheck)] {
            guard (0...tenYears).contains(value) else {
                throw ValidationError("\(flag) takes 0–\(tenYears) seconds, got \(value).")
            }
        }
        guard freshnessFloor <= freshnessCeiling else {
            throw ValidationError("--freshness-floor (\(freshnessFloor)) must not be above --freshness-ceiling (\(freshnessCeiling)).")
        }
    }

    func applyFreshnessOptions(to configuration: inout ServerConfiguration) {
        configuration.sourceTTL = sourceTtl
        configuration.freshnessFloor = freshnessFloor
        configuration.freshnessCeiling = freshnessCeiling
        configuration.sharedSourceCheckInterval = sharedSourceCheck
    }
}
