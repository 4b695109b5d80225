#include "textflag.h"

// func ticks() uint64
//
// RDTSC without a fence: the reading may be taken a few hundred cycles
// before the instructions around it, which the package's bound covers.
TEXT ·ticks(SB),NOSPLIT,$0-8
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func ticksOrdered() uint64
//
// LFENCE; RDTSC, as the kernel's rdtsc_ordered: the counter is read only
// after every earlier instruction has completed.
TEXT ·ticksOrdered(SB),NOSPLIT,$0-8
	LFENCE
	RDTSC
	SHLQ	$32, DX
	ORQ	DX, AX
	MOVQ	AX, ret+0(FP)
	RET

// func cpuid(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB),NOSPLIT,$0-24
	MOVL	leaf+0(FP), AX
	MOVL	sub+4(FP), CX
	CPUID
	MOVL	AX, a+8(FP)
	MOVL	BX, b+12(FP)
	MOVL	CX, c+16(FP)
	MOVL	DX, d+20(FP)
	RET
