import Benchmark
import Foundation
import WebImage

/// What colour management adds to a decode: one 1024×768 JPEG decoded untagged, tagged sRGB
/// (the fast path: one cache lookup), tagged Display P3 (converted to sRGB) and tagged Display
/// P3 with conversion off. Compare the medians within one run.
func colorBenchmarks() {
    guard let plain = benchmarkInputs(set: "none", fallback: PixelSize(width: 1024, height: 768)).first else { return }
    let inputs: [(name: String, data: Data, options: DecodeOptions)] = [
        ("untagged", plain, .default),
        ("sRGB", withICC(plain, ColorProfile.sRGB.iccData), .default),
        ("Display P3 converted", withICC(plain, ColorProfile.displayP3.iccData), .default),
        ("Display P3 conversion off", withICC(plain, ColorProfile.displayP3.iccData),
         DecodeOptions(convertsToSRGB: false)),
    ]
    for input in inputs {
        Benchmark("Colour: decode 1024x768 JPEG, \(input.name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try CodersManager.shared.decode(input.data, options: input.options))
            }
        }
    }
}

/// `jpeg` with `icc` in one APP2 `ICC_PROFILE` chunk right after SOI.
private func withICC(_ jpeg: Data, _ icc: Data) -> Data {
    let payload = Array("ICC_PROFILE\0".utf8) + [1, 1] + [UInt8](icc)
    let length = payload.count + 2
    var out = Data(jpeg.prefix(2))
    out.append(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
    out.append(jpeg.dropFirst(2))
    return out
}
