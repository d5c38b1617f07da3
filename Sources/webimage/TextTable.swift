/// A plain-text table with a header row and columns padded to their widest cell; numbers are
/// right-aligned, text left-aligned.
struct TextTable {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(_ headers: [String]) {
        self.headers = headers
    }

    /// Appends a row; missing cells print empty, extra cells are dropped.
    mutating func add(_ cells: [String]) {
        rows.append((0..<headers.count).map { $0 < cells.count ? cells[$0] : "" })
    }

    /// The table, one line per row, with a rule under the header.
    var text: String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        let numeric = headers.indices.map { column in
            !rows.isEmpty && rows.allSatisfy { Self.looksNumeric($0[column]) }
        }
        func line(_ cells: [String]) -> String {
            cells.indices.map { column in
                let cell = cells[column]
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return numeric[column] ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
        return ([line(headers), rule] + rows.map(line)).joined(separator: "\n")
    }

    private static func looksNumeric(_ cell: String) -> Bool {
        guard let first = cell.first else { return true }
        return first.isNumber || first == "-" && cell.count > 1
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
