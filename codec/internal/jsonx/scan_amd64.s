//go:build amd64 && !purego

#include "textflag.h"

// CONSTANTS broadcasts the bytes the scans look for: X1 holds 16 quotes, X2
// 16 backslashes, X3 16 times 0x1f (the last control byte).
#define CONSTANTS \
	MOVQ $0x2222222222222222, AX; \
	MOVQ AX, X1; \
	PUNPCKLQDQ X1, X1; \
	MOVQ $0x5c5c5c5c5c5c5c5c, AX; \
	MOVQ AX, X2; \
	PUNPCKLQDQ X2, X2; \
	MOVQ $0x1f1f1f1f1f1f1f1f, AX; \
	MOVQ AX, X3; \
	PUNPCKLQDQ X3, X3

// CLASSIFY loads the 16 bytes at off(SI) into X0 and leaves their quotes in
// X4, backslashes in X5 and control bytes (min(b, 0x1f) == b) in X6, as
// 0xff bytes.
#define CLASSIFY(off) \
	MOVOU off(SI), X0; \
	MOVOU X0, X4; \
	PCMPEQB X1, X4; \
	MOVOU X0, X5; \
	PCMPEQB X2, X5; \
	MOVOU X0, X6; \
	PMINUB X3, X6; \
	PCMPEQB X0, X6

// MASKS classifies the 16 bytes at off(SI) and ORs their quote, backslash
// and control masks, shifted left by shift, into R8, R9 and R10.
#define MASKS(off, shift) \
	CLASSIFY(off); \
	PMOVMSKB X4, AX; \
	PMOVMSKB X5, BX; \
	PMOVMSKB X6, CX; \
	SHLQ $shift, AX; \
	SHLQ $shift, BX; \
	SHLQ $shift, CX; \
	ORQ AX, R8; \
	ORQ BX, R9; \
	ORQ CX, R10

// func StringMasks(p *byte) (quote, backslash, control uint64)
TEXT ·StringMasks(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	CONSTANTS
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	MASKS(0, 0)
	MASKS(16, 16)
	MASKS(32, 32)
	MASKS(48, 48)
	MOVQ R8, quote+8(FP)
	MOVQ R9, backslash+16(FP)
	MOVQ R10, control+24(FP)
	RET

// PLAIN classifies the 16 bytes at off(SI) and ORs into X7 the bytes that
// are a quote, a backslash or a control byte, as 0xff bytes.
#define PLAIN(off) \
	CLASSIFY(off); \
	POR X4, X7; \
	POR X5, X7; \
	POR X6, X7

// func plainBlocks(p *byte, n int) int
TEXT ·plainBlocks(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	CONSTANTS
	XORQ DX, DX
loop:
	CMPQ CX, $64
	JB done
	PXOR X7, X7
	PLAIN(0)
	PLAIN(16)
	PLAIN(32)
	PLAIN(48)
	PMOVMSKB X7, AX
	TESTQ AX, AX
	JNZ done
	ADDQ $64, SI
	ADDQ $64, DX
	SUBQ $64, CX
	JMP loop
done:
	MOVQ DX, ret+16(FP)
	RET
