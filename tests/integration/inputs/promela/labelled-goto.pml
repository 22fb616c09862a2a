// spin: holds 11
/* A labelled goto is a step of its own in SPIN (an unlabelled one is not). */
byte x;
active proctype P() {
T:	x++;
	if
	:: x < 3 ->
progress:	goto T
	:: else -> skip
	fi
}
