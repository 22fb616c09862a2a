// spin: holds 29
/* for (v in c) over a channel's messages (SPIN's expansion: receive and send back each one, with a hidden byte counter) and for (n in a) over an array's indexes. */
typedef m { byte b };
init {
	chan x = [3] of { m };
	m v; byte n;
	int a[3];
	v.b = 1; x!v; v.b = 2; x!v;
	for (v in x) { n = n + v.b }
	for (n in a) { skip }
}
