import ArgumentParser
import WebImageServer

extension ServeCommand {
    /// Checks `--autoquality-target`, `--autoquality-min`, `--autoquality-max`,
    /// `--best-format-max-encodes` and `--best-format-max-resolution`.
    func validateBestFormatOptions() throws {
        guard autoqualityTarget.isFinite, autoqualityTarget > 0, autoqualityTarget <= 1 else {
            throw ValidationError("--autoquality-target takes an SSIM above 0 and at most 1, got \(autoqualityTarget).")
        }
        for (flag, value) in [("--autoquality-min", autoqualityMin), ("--autoquality-max", autoqualityMax)] {
            guard (1...100).contains(value) else { throw ValidationError("\(flag) takes 1–100, got \(value).") }
        }
        guard (2...100).contains(bestFormatMaxEncodes) else {
            throw ValidationError("--best-format-max-encodes takes 2–100, got \(bestFormatMaxEncodes).")
        }
        guard autoqualityMin <= autoqualityMax else {
            throw ValidationError("--autoquality-min (\(autoqualityMin)) must not be above --autoquality-max (\(autoqualityMax)).")
        }
        guard bestFormatMaxResolution.isFinite, (0...1_000_000).contains(bestFormatMaxResolution) else {
            throw ValidationError("--best-format-max-resolution takes 0–1000000 megapixels, got \(bestFormatMaxResolution).")
        }
    }

    func applyBestFormatOptions(to configuration: inout ServerConfiguration) {
        configuration.autoQualityTarget = autoqualityTarget
        configuration.autoQualityMin = autoqualityMin
        configuration.autoQualityMax = autoqualityMax
        configuration.bestFormatMaxEncodes = bestFormatMaxEncodes
        configuration.bestFormatMaxResolution = Int(bestFormatMaxResolution * 1_000_000)
    }
}
