/// A cosine basis value for every component `i` below `count` and position `x` below `length`,
/// computed once: each hash writes the formula in the order its reference does, so that the
/// rounding matches.
struct CosineTable {
    private let values: [Double]
    private let length: Int

    init(count: Int, length: Int, _ basis: (_ i: Double, _ x: Double) -> Double) {
        self.length = length
        var values = [Double](repeating: 0, count: count * length)
        for i in 0..<count {
            for x in 0..<length { values[i * length + x] = basis(Double(i), Double(x)) }
        }
        self.values = values
    }

    subscript(i: Int, x: Int) -> Double { values[i * length + x] }
}
