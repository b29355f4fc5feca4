/* The four set-up needs 000 ("Measuring") names, at the addresses port/CHOICES.md gives, so a harness
 * must meet them here as it must with POD: a sound function that makes a system call, a memmove that
 * reloads ES from the stack, rand() whose seed sits in a thread block reached through the getter at
 * [0x4ed728], and (in main.c) the x87 control word 0x027f. Watcom register convention. */
        .intel_syntax noprefix

        .set SOUND_FD, 0x5c0000
        .set TLS_GETTER_PTR, 0x4ed728
        .set RAND_SEED, 0x10            /* the seed's offset in the thread's C library block */

/* ---- sound::play (FUN_004b8d64): eax = car, edx = slot. Writes the 8 bytes (car, slot) to the sound
 * device with the i386 system call int 0x80 (write): under an emulator it must be stubbed (a ret). */
        .section .pod.fn.004b8d64,"ax",@progbits
        .globl pod_004b8d64
        .type pod_004b8d64,@function
pod_004b8d64:
        push    ebx
        push    ecx
        push    edx
        push    eax                     /* [esp] = car, [esp+4] = slot: the message */
        mov     ebx, ds:SOUND_FD
        mov     ecx, esp
        mov     edx, 8
        mov     eax, 4                  /* __NR_write */
        int     0x80
        pop     eax
        pop     edx
        pop     ecx
        pop     ebx
        ret
        .size pod_004b8d64, .-pod_004b8d64

/* ---- rand (0x4c7f37) -> eax in 0..0x7fff. seed = seed * 1103515245 + 12345 (chosen, G22: the C
 * library's classic generator); the seed lives in the block the TLS getter returns. */
        .section .pod.fn.004c7f37,"ax",@progbits
        .globl pod_004c7f37
        .type pod_004c7f37,@function
pod_004c7f37:
        push    edx
        push    ecx
        call    dword ptr ds:TLS_GETTER_PTR     /* eax = this thread's block */
        mov     ecx, eax
        mov     eax, [ecx+RAND_SEED]
        imul    eax, eax, 1103515245
        add     eax, 12345
        mov     [ecx+RAND_SEED], eax
        shr     eax, 16
        and     eax, 0x7fff
        pop     ecx
        pop     edx
        ret
        .size pod_004c7f37, .-pod_004c7f37

/* ---- memmove (0x4c8e70, chosen): eax = dst, edx = src, ebx = n -> eax = dst. As Watcom's, it
 * reloads ES from the stack (push ds / pop es), so an emulator without a flat GDT faults here. */
        .section .pod.fn.004c8e70,"ax",@progbits
        .globl pod_004c8e70
        .type pod_004c8e70,@function
pod_004c8e70:
        push    esi
        push    edi
        push    ecx
        push    es
        push    ds
        pop     es
        mov     edi, eax
        mov     esi, edx
        mov     ecx, ebx
        cmp     edi, esi
        jbe     1f
        lea     esi, [esi+ecx-1]        /* dst above src: copy backwards */
        lea     edi, [edi+ecx-1]
        std
        rep movsb
        cld
        jmp     2f
1:      rep movsb
2:      pop     es
        pop     ecx
        pop     edi
        pop     esi
        ret
        .size pod_004c8e70, .-pod_004c8e70

/* ---- the TLS getter (0x7f0000, what [0x4ed728] points at): eax = the address of this thread's C
 * library block, found through gs (the i386 TLS register) as TlsGetValue finds POD's through fs. */
        .section .pod.fn.007f0000,"ax",@progbits
        .globl pod_007f0000
        .type pod_007f0000,@function
pod_007f0000:
        mov     eax, gs:0
        lea     eax, [eax + standin_crt_block@ntpoff]
        ret
        .size pod_007f0000, .-pod_007f0000

        .section .note.GNU-stack,"",@progbits
