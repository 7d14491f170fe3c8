extension TransferPlan: JSONRepresentable {
    /// The `transfer` object of SPEC section 7, in its field order.
    public var json: JSONValue {
        .object([
            .init("method", .string(method.rawValue)),
            .init("inlineMode", inlineMode.map { .string($0.rawValue) } ?? .null),
            .init("chunkSizes", .array(chunkSizes.map { .int($0) })),
            .init("encryptedSize", .int(encryptedSize)),
            .init("padding", .int(padding)),
            .init("reason", .optional(reason)),
            .init("smpChunks", .int(smpChunks)),
            .init("recipientKeys", .int(recipientKeys)),
        ])
    }
}
