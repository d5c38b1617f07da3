import PropertyBased
import Testing
@testable import WebImage
@testable import WebImageServer

/// The planner over random option strings — sizes, enlarge and extend, dpr, zoom, minimums,
/// padding, crops, rotations, huge and degenerate numbers included — and random source sizes and
/// frame counts: it never traps, and every plan it accepts keeps every bitmap and the result
/// within the limits; what it refuses is a 4xx.
@Suite("Job plan: properties")
struct JobPlanPropertyTests {
    static let limits = JobLimits(maxSourcePixels: 50_000_000, maxResultDimension: 8192, maxFrames: 100)

    /// Up to six options, written as in a URL, drawn from `draws` (each draw picks an option and
    /// its numbers): sizes, enlarge and extend, dpr, zoom, minimums, padding, crops, rotations,
    /// with numbers small, near a limit or enormous.
    static func optionText(_ draws: [Int]) -> String {
        var draws = draws.makeIterator()
        func next() -> Int { draws.next() ?? 0 }
        func number() -> Int {
            let value = next()
            switch value % 4 {
            case 0: return value % 2000
            case 1: return 8000 + value % 1000
            case 2: return value % Int(Int32.max)
            default: return value
            }
        }
        func factor() -> String {
            let value = next()
            switch value % 3 {
            case 0: return String(Double(value % 400 + 1) / 100)
            case 1: return String(Double(value % 1_000_000))
            default: return "1e\(value % 300)"
            }
        }
        let types = ["fit", "fill", "fill-down", "force", "auto"]
        var options: [String] = []
        for _ in 0..<(1 + next() % 6) {
            switch next() % 14 {
            case 0: options.append("rs:\(types[next() % 5]):\(number()):\(number()):\(next() % 2):\(next() % 2)")
            case 1: options.append("w:\(number())")
            case 2: options.append("h:\(number())")
            case 3: options.append("mw:\(number())")
            case 4: options.append("mh:\(number())")
            case 5: options.append("dpr:\(factor())")
            case 6: options.append("z:\(factor()):\(factor())")
            case 7: options.append("pd:\(number()):\(number()):\(number()):\(number())")
            case 8: options.append("c:\(number()):\(number())")
            case 9: options.append("rot:\(next() % 8 * 90)")
            case 10: options.append("el:\(next() % 2)")
            case 11: options.append("ex:\(next() % 2)")
            case 12: options.append("exar:\(next() % 2)")
            default: options.append(["g:sm", "g:no", "g:ce:0.3:0.7"][next() % 3])
            }
        }
        return options.joined(separator: "/")
    }

    static let side = Gen.int(in: 1...12_000)

    @Test func everyAcceptedPlanStaysWithinTheLimits() async {
        await propertyCheck(count: 2000, input: Gen.int(in: 0...Int.max).array(of: 40), Self.side, Self.side,
                            Gen.int(in: 1...10_000)) { draws, width, height, frames in
            let optionText = Self.optionText(draws)
            guard let options = try? urlOptions(optionText) else { return }
            let source = PixelSize(width: width, height: height)
            do {
                let plan = try JobPlan(options: options, shownSize: source, format: .jpeg,
                                       frameCount: frames, limits: Self.limits)
                let resize = plan.resize
                for size in [resize.scaledSize, resize.sourceCrop?.size, resize.resultCrop?.size, resize.canvas,
                             plan.decodeBox].compactMap({ $0 }) {
                    #expect(size.width >= 1 && size.height >= 1, "\(optionText) on \(source)")
                    #expect(JobPlan.area(size) <= Self.limits.maxBitmapPixels, "\(optionText) on \(source)")
                }
                let result = resize.resultSize
                #expect(max(result.width, result.height) <= Self.limits.maxResultDimension, "\(optionText) on \(source)")
                if frames > 1 {
                    #expect(frames <= Self.limits.maxFrames)
                    #expect(JobPlan.area(result) * frames <= Self.limits.maxSourcePixels, "\(optionText) × \(frames)")
                }
            } catch let error as ServerError {
                #expect((400..<500).contains(error.status), "\(optionText) on \(source): \(error.status)")
            } catch {
                Issue.record("\(optionText) on \(source): \(error)")
            }
        }
    }
}
