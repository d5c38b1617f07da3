/// Repeated box blurs on premultiplied pixels, the classic fast approximation of a Gaussian:
/// three passes of a box `kernel` pixels wide give a bell curve. Each pass is a sliding-window
/// sum, so the cost does not depend on the radius. Edges are extended (edge pixels repeat).
enum BoxBlur {
    /// `bitmap` blurred by `passes` box passes of an odd `kernel` width, in both directions.
    static func blur(_ bitmap: Bitmap, kernel: Int, passes: Int) -> Bitmap {
        let width = bitmap.width, height = bitmap.height
        let count = width * height * 4
        // Premultiplied working values: colour × alpha (0…65025) and alpha × 255, same scale.
        var front = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            bitmap.pixels.withUnsafeBufferPointer { src in
                var i = 0
                while i < count {
                    let a = UInt16(src[i &+ 3])
                    buffer[i] = UInt16(src[i]) &* a; buffer[i &+ 1] = UInt16(src[i &+ 1]) &* a
                    buffer[i &+ 2] = UInt16(src[i &+ 2]) &* a; buffer[i &+ 3] = a &* 255
                    i &+= 4
                }
            }
            initialized = count
        }
        var back = [UInt16](repeating: 0, count: count)
        let radius = kernel / 2
        for _ in 0..<passes {
            front.withUnsafeBufferPointer { s in
                back.withUnsafeMutableBufferPointer { d in horizontal(s, d, width: width, height: height, radius: radius) }
            }
            swap(&front, &back)
        }
        for _ in 0..<passes {
            front.withUnsafeBufferPointer { s in
                back.withUnsafeMutableBufferPointer { d in vertical(s, d, width: width, height: height, radius: radius) }
            }
            swap(&front, &back)
        }
        return front.withUnsafeBufferPointer { p in
            Bitmap(width: width, height: height) { out in
                var i = 0
                while i < count {
                    let a = Int(p[i &+ 3])
                    if a < 128 {
                        out[i] = 0; out[i &+ 1] = 0; out[i &+ 2] = 0; out[i &+ 3] = 0
                    } else {
                        let half = a / 2
                        out[i] = UInt8(min((Int(p[i]) &* 255 &+ half) / a, 255))
                        out[i &+ 1] = UInt8(min((Int(p[i &+ 1]) &* 255 &+ half) / a, 255))
                        out[i &+ 2] = UInt8(min((Int(p[i &+ 2]) &* 255 &+ half) / a, 255))
                        out[i &+ 3] = UInt8((a &+ 127) / 255)
                    }
                    i &+= 4
                }
            }
        }
    }

    /// One box pass along each row.
    private static func horizontal(_ src: UnsafeBufferPointer<UInt16>, _ dst: UnsafeMutableBufferPointer<UInt16>,
                                   width: Int, height: Int, radius: Int) {
        let divide = Divider(kernel: 2 * radius + 1)
        var sums = (0, 0, 0, 0)
        for y in 0..<height {
            let row = y &* width &* 4
            @inline(__always) func at(_ x: Int) -> Int { row &+ min(max(x, 0), width &- 1) &* 4 }
            sums = (0, 0, 0, 0)
            for x in -radius...radius {
                let i = at(x)
                sums.0 &+= Int(src[i]); sums.1 &+= Int(src[i &+ 1]); sums.2 &+= Int(src[i &+ 2]); sums.3 &+= Int(src[i &+ 3])
            }
            for x in 0..<width {
                let o = row &+ x &* 4
                dst[o] = divide(sums.0); dst[o &+ 1] = divide(sums.1)
                dst[o &+ 2] = divide(sums.2); dst[o &+ 3] = divide(sums.3)
                let add = at(x &+ radius &+ 1), sub = at(x &- radius)
                sums.0 &+= Int(src[add]) &- Int(src[sub]); sums.1 &+= Int(src[add &+ 1]) &- Int(src[sub &+ 1])
                sums.2 &+= Int(src[add &+ 2]) &- Int(src[sub &+ 2]); sums.3 &+= Int(src[add &+ 3]) &- Int(src[sub &+ 3])
            }
        }
    }

    /// One box pass down the columns, a whole row of running sums at a time (cache friendly).
    private static func vertical(_ src: UnsafeBufferPointer<UInt16>, _ dst: UnsafeMutableBufferPointer<UInt16>,
                                 width: Int, height: Int, radius: Int) {
        let divide = Divider(kernel: 2 * radius + 1), rowLength = width * 4
        @inline(__always) func rowStart(_ y: Int) -> Int { min(max(y, 0), height &- 1) &* rowLength }
        var sums = [Int](repeating: 0, count: rowLength)
        sums.withUnsafeMutableBufferPointer { s in
            for y in -radius...radius {
                let r = rowStart(y)
                for i in 0..<rowLength { s[i] &+= Int(src[r &+ i]) }
            }
            for y in 0..<height {
                let o = y &* rowLength
                for i in 0..<rowLength { dst[o &+ i] = divide(s[i]) }
                let add = rowStart(y &+ radius &+ 1), sub = rowStart(y &- radius)
                for i in 0..<rowLength { s[i] &+= Int(src[add &+ i]) &- Int(src[sub &+ i]) }
            }
        }
    }

    /// Rounded division of a window sum by the kernel width, as a multiply and shift (the
    /// blur's hot loops would otherwise spend most of their time in integer division). The
    /// reciprocal's error stays under one unit of 65025 for kernels up to 4096; wider ones divide.
    private struct Divider {
        let kernel: Int, half: Int, multiplier: Int
        init(kernel: Int) {
            self.kernel = kernel
            half = kernel / 2
            multiplier = kernel <= 4096 ? (1 << 32) / kernel + 1 : 0
        }
        @inline(__always)
        func callAsFunction(_ sum: Int) -> UInt16 {
            let value = multiplier != 0 ? ((sum &+ half) &* multiplier) >> 32 : (sum &+ half) / kernel
            return UInt16(truncatingIfNeeded: min(value, 65025))
        }
    }
}
