// spin: holds 87
/* run in a loop that is no counting loop: W gets a pool of processes;
   each ends before the next run, so the pool reuses its first process
   (SPIN reuses the pid). */
chan reply = [1] of { byte };
proctype W(chan r; byte v) { r!v*2 }
init {
	byte k, x;
	do
	:: k < 3 -> run W(reply, k); k++; reply?x; assert(x == 2*(k-1))
	:: k == 3 -> break
	od
}
