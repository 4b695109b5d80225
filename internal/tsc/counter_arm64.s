#include "textflag.h"

// func ticks() uint64
//
// The virtual counter, after an ISB so that it is not read ahead of the
// instructions before it, as the kernel's vDSO reads it.
TEXT ·ticks(SB),NOSPLIT,$0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET

// func ticksOrdered() uint64
TEXT ·ticksOrdered(SB),NOSPLIT,$0-8
	ISB	$15
	MRS	CNTVCT_EL0, R0
	MOVD	R0, ret+0(FP)
	RET
