import WebImage

/// A request target, as a stranger could send it, through the server's URL parser (unsigned and
/// signed) and, when it parses, the job planner for sources of several sizes and frame counts
/// (the last bytes of the input pick one). The planner must never trap, every plan it accepts
/// must keep each bitmap within the pixel limit and the result within the side limit, an
/// animation's frames within the frame and pixel limits, and what it refuses must be a 4xx.
@_cdecl("LLVMFuzzerTestOneInput") // main.swift also hands it to the driver (through a closure)
public func fuzzRequest(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = UnsafeBufferPointer(start: bytes, count: count)
    let target = String(decoding: input.prefix(16 * 1024), as: UTF8.self)
    _ = try? signedParser.parse(target)
    guard let parsed = try? unsignedParser.parse(target) else { return 0 }

    var sizes = [PixelSize(width: 400, height: 300), PixelSize(width: 1, height: 1),
                 PixelSize(width: 7000, height: 7000), PixelSize(width: 20_000, height: 3)]
    if count >= 6 {
        let tail = Array(input.suffix(6))
        sizes.append(PixelSize(width: 1 + (Int(tail[0]) << 8 | Int(tail[1])), height: 1 + (Int(tail[2]) << 8 | Int(tail[3]))))
    }
    let frames = count >= 6 ? [1, 1 + Int(input[count - 5]) * 40] : [1, 10_000]
    for limits in [serverLimits, JobLimits(maxSourcePixels: 50_000_000, maxResultDimension: 0, maxFrames: 1)] {
        let tightened = JobLimits(maxSourcePixels: limits.maxSourcePixels, maxResultDimension: limits.maxResultDimension,
                                  maxFrames: limits.maxFrames, urlMegapixels: parsed.options.maxSourceResolution)
        check(tightened.maxSourcePixels <= limits.maxSourcePixels, "msr loosened the pixel limit", target)
        for size in sizes {
            for frameCount in frames {
                plan(parsed.options, size: size, frames: frameCount, limits: tightened, target: target)
            }
        }
    }
    return 0
}

private let unsignedParser = try! ImageURLParser(signer: nil, presets: ["small": "rs:fit:100:100", "big": "s:9000:9000:0:1"],
                                                 now: { 1_700_000_000 })
private let signedParser = try! ImageURLParser(
    signer: try! URLSigner(keys: ["943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"],
                           salts: ["520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"]),
    presets: [:], now: { 1_700_000_000 })
/// The server's defaults.
private let serverLimits = JobLimits(maxSourcePixels: 50_000_000, maxResultDimension: 8192, maxFrames: 100)

private func plan(_ options: ProcessingOptions, size: PixelSize, frames: Int, limits: JobLimits, target: String) {
    let job: JobPlan
    do {
        job = try JobPlan(options: options, shownSize: size, format: .jpeg, frameCount: frames, limits: limits)
    } catch {
        check((400..<500).contains(error.status), "refused with \(error.status) (\(error.name))", target)
        return
    }
    let resize = job.resize
    for step in [resize.scaledSize, resize.sourceCrop?.size, resize.resultCrop?.size, resize.canvas, job.decodeBox] {
        guard let step else { continue }
        check(step.width >= 1 && step.height >= 1, "an empty \(step.width)×\(step.height) step", target)
        check(JobPlan.area(step) <= limits.maxBitmapPixels, "a \(step.width)×\(step.height) step past the limit", target)
    }
    let result = resize.resultSize
    if limits.maxResultDimension > 0 {
        check(max(result.width, result.height) <= limits.maxResultDimension, "a \(result.width)×\(result.height) result", target)
    }
    if frames > 1, limits.maxFrames > 1 {
        check(frames <= limits.maxFrames, "\(frames) frames planned", target)
        let (total, overflow) = JobPlan.area(result).multipliedReportingOverflow(by: frames)
        check(!overflow && total <= limits.maxSourcePixels, "\(frames) frames of \(result.width)×\(result.height)", target)
    }
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String, _ target: String) {
    if !condition { fatalError("fuzz invariant broken: \(message()) (target: \(target.debugDescription))") }
}
