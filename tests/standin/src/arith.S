/* The arithmetic layer at POD's addresses (port/CHOICES.md "Arithmetic layer and tables"), instruction by instruction as
 * port/CHOICES.md "Arithmetic layer and tables" defines it. Watcom register convention; every
 * routine preserves all registers but its result (eax) and leaves the x87 stack empty.
 * The thread runs with the x87 control word 0x027f (53-bit precision, round to nearest even), set in
 * main before anything else, so each fadd/fmul/fimul below rounds as one IEEE binary64 operation. */
        .intel_syntax noprefix

        .set ROUND_M, 0x4ee0c0          /* double 1.5 * 2^68 */
        .set INV65536, 0x4ee0c8         /* double 2^-16 */
        .set SQRT_PTR, 0x4ed434         /* [ ] = sqrt_table[0] */
        .set SINES, 0x72c704
        .set PI16, 205887               /* round(pi * 65536) */
        .set TWO_PI16, 411774
        .set HALF_PI16, 102944          /* round(pi/2 * 65536) */

/* ---- math::dot16 (FUN_004d41a0): eax = a, edx = b -> eax = ((a0 b0 + M) + a1 b1) + a2 b2 ------ */
        .section .pod.fn.004d41a0,"ax",@progbits
        .globl pod_004d41a0
        .type pod_004d41a0,@function
pod_004d41a0:
        fild    dword ptr [eax]
        fimul   dword ptr [edx]
        fadd    qword ptr ds:ROUND_M
        fild    dword ptr [eax+4]
        fimul   dword ptr [edx+4]
        faddp   st(1), st
        fild    dword ptr [eax+8]
        fimul   dword ptr [edx+8]
        faddp   st(1), st
        sub     esp, 8
        fstp    qword ptr [esp]
        mov     eax, [esp]              /* the low word: the sum / 65536, rounded (F006) */
        add     esp, 8
        ret
        .size pod_004d41a0, .-pod_004d41a0

/* ---- math::cross16 (FUN_004d41df): eax = a, edx = b, ebx = out --------------------------------- */
        .section .pod.fn.004d41df,"ax",@progbits
        .globl pod_004d41df
        .type pod_004d41df,@function
pod_004d41df:
        push    ecx
        fild    dword ptr [eax+4]       /* x = (a1 b2 + M) - a2 b1 */
        fimul   dword ptr [edx+8]
        fadd    qword ptr ds:ROUND_M
        fild    dword ptr [eax+8]
        fimul   dword ptr [edx+4]
        fsubp   st(1), st
        fild    dword ptr [eax+8]       /* y = (a2 b0 + M) - a0 b2 */
        fimul   dword ptr [edx]
        fadd    qword ptr ds:ROUND_M
        fild    dword ptr [eax]
        fimul   dword ptr [edx+8]
        fsubp   st(1), st
        fild    dword ptr [eax]         /* z = (a0 b1 - a1 b0) x 2^-16, fistp (F008) */
        fimul   dword ptr [edx+4]
        fild    dword ptr [eax+4]
        fimul   dword ptr [edx]
        fsubp   st(1), st
        fmul    qword ptr ds:INV65536
        fistp   dword ptr [ebx+8]
        sub     esp, 8
        fstp    qword ptr [esp]
        mov     ecx, [esp]
        mov     [ebx+4], ecx
        fstp    qword ptr [esp]
        mov     ecx, [esp]
        mov     [ebx], ecx
        add     esp, 8
        pop     ecx
        ret
        .size pod_004d41df, .-pod_004d41df

/* ---- Tables::length16 (FUN_004d43ad): eax = v -> eax = |v| through the square-root table ------- */
        .section .pod.fn.004d43ad,"ax",@progbits
        .globl pod_004d43ad
        .type pod_004d43ad,@function
pod_004d43ad:
        push    ebx
        push    ecx
        push    edx
        push    esi
        push    edi
        mov     esi, eax
        mov     eax, [esi]              /* ecx:ebx = v0^2 + v1^2 + v2^2, unsigned 64 */
        imul    eax
        mov     ebx, eax
        mov     ecx, edx
        mov     eax, [esi+4]
        imul    eax
        add     ebx, eax
        adc     ecx, edx
        mov     eax, [esi+8]
        imul    eax
        add     ebx, eax
        adc     ecx, edx
        mov     eax, ecx
        or      eax, ebx
        jz      .Llen_done              /* s = 0: length 0 (eax = 0) */
        test    ecx, ecx
        jz      .Llen_low
        bsr     edi, ecx
        add     edi, 32
        jmp     .Llen_have_b
.Llen_low:
        bsr     edi, ebx                /* edi = b, the highest set bit */
.Llen_have_b:
        cmp     edi, 13
        jb      .Llen_small
        sub     edi, 13                 /* k = (b - 13) >> 1; i = s >> 2k */
        shr     edi, 1
        mov     eax, ebx
        mov     edx, ecx
        lea     ecx, [edi+edi]
        shrd    eax, edx, cl
        shr     edx, cl
        test    cl, 32
        jz      .Llen_index
        mov     eax, edx
.Llen_index:
        mov     ebx, ds:SQRT_PTR
        mov     eax, [ebx+eax*4]        /* r = sqrt_table[i], i in 0x2000..0x7fff */
        cmp     edi, 16
        ja      .Llen_left
        mov     ecx, 16                 /* r >> (16 - k) */
        sub     ecx, edi
        shr     eax, cl
        jmp     .Llen_done
.Llen_left:
        lea     ecx, [edi-16]           /* r << (k - 16), modulo 2^32 */
        shl     eax, cl
        jmp     .Llen_done
.Llen_small:
        mov     ecx, 14                 /* m = (14 - b) >> 1; i = s << 2m */
        sub     ecx, edi
        shr     ecx, 1
        mov     edi, ecx
        mov     eax, ebx
        add     ecx, ecx
        shl     eax, cl
        mov     ebx, ds:SQRT_PTR
        mov     eax, [ebx+eax*4]
        lea     ecx, [edi+16]           /* r >> (16 + m) */
        shr     eax, cl
.Llen_done:
        pop     edi
        pop     esi
        pop     edx
        pop     ecx
        pop     ebx
        ret
        .size pod_004d43ad, .-pod_004d43ad

/* ---- math::scale16_in_place (FUN_004d4606): eax = v (in/out), edx = s ------------------------- */
        .section .pod.fn.004d4606,"ax",@progbits
        .globl pod_004d4606
        .type pod_004d4606,@function
pod_004d4606:
        push    edx
        fild    dword ptr [eax]
        fimul   dword ptr [esp]
        fmul    qword ptr ds:INV65536
        fistp   dword ptr [eax]
        fild    dword ptr [eax+4]
        fimul   dword ptr [esp]
        fmul    qword ptr ds:INV65536
        fistp   dword ptr [eax+4]
        fild    dword ptr [eax+8]
        fimul   dword ptr [esp]
        fmul    qword ptr ds:INV65536
        fistp   dword ptr [eax+8]
        pop     edx
        ret
        .size pod_004d4606, .-pod_004d4606

/* ---- math::scale16 (FUN_004d465d): eax = v, edx = s, ebx = out -------------------------------- */
        .section .pod.fn.004d465d,"ax",@progbits
        .globl pod_004d465d
        .type pod_004d465d,@function
pod_004d465d:
        push    ecx
        push    edx
        fild    dword ptr [eax]
        fimul   dword ptr [esp]
        fadd    qword ptr ds:ROUND_M
        fild    dword ptr [eax+4]
        fimul   dword ptr [esp]
        fadd    qword ptr ds:ROUND_M
        fild    dword ptr [eax+8]
        fimul   dword ptr [esp]
        fadd    qword ptr ds:ROUND_M
        sub     esp, 8
        fstp    qword ptr [esp]
        mov     ecx, [esp]
        mov     [ebx+8], ecx
        fstp    qword ptr [esp]
        mov     ecx, [esp]
        mov     [ebx+4], ecx
        fstp    qword ptr [esp]
        mov     ecx, [esp]
        mov     [ebx], ecx
        add     esp, 8
        pop     edx
        pop     ecx
        ret
        .size pod_004d465d, .-pod_004d465d

/* ---- Tables::cos16 (0x4c5e64): eight bytes that add pi/2 and fall into sin16 ------------------- */
        .section .pod.fn.004c5e64,"ax",@progbits
        .globl pod_004c5e64
        .type pod_004c5e64,@function
pod_004c5e64:
        .byte   0x05                    /* add eax, imm32 (the 5-byte form, whatever the assembler prefers) */
        .long   HALF_PI16
        .byte   0x0f, 0x1f, 0x00        /* nop dword ptr [eax]: 3 bytes, then 0x4c5e6c */
        .size pod_004c5e64, .-pod_004c5e64

/* ---- Tables::sin16 (0x4c5e6c): eax = angle (16.16 rad) -> eax ---------------------------------- */
        .section .pod.fn.004c5e6c,"ax",@progbits
        .globl pod_004c5e6c
        .type pod_004c5e6c,@function
pod_004c5e6c:
        push    edx
        push    ecx
        cdq
        mov     ecx, TWO_PI16
        idiv    ecx                     /* edx = angle rem 2 pi16, the angle's sign */
        mov     eax, edx
        cmp     eax, PI16
        jle     1f
        sub     eax, TWO_PI16
1:      cmp     eax, -PI16
        jg      2f
        add     eax, TWO_PI16           /* now in (-pi16, pi16] */
2:      cdq                             /* edx = 0 or -1: the sign */
        xor     eax, edx
        sub     eax, edx
        cmp     eax, HALF_PI16
        jle     3f
        neg     eax
        add     eax, PI16               /* sin(pi - x) = sin x */
3:      shr     eax, 3
        mov     eax, [SINES+eax*4]
        xor     eax, edx
        sub     eax, edx
        pop     ecx
        pop     edx
        ret
        .size pod_004c5e6c, .-pod_004c5e6c

/* ---- body::exp16 (FUN_004c5ed8): eax = x -> 1 + x + x^2/2 in 16.16 integers ------------------- */
        .section .pod.fn.004c5ed8,"ax",@progbits
        .globl pod_004c5ed8
        .type pod_004c5ed8,@function
pod_004c5ed8:
        push    edx
        push    ecx
        mov     ecx, eax
        imul    eax
        shrd    eax, edx, 16            /* t = mul16(x, x) */
        sar     eax, 1
        add     eax, ecx
        add     eax, 0x10000
        pop     ecx
        pop     edx
        ret
        .size pod_004c5ed8, .-pod_004c5ed8

        .section .note.GNU-stack,"",@progbits
