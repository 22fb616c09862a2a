// http://spinroot.com/spin/Doc/Exercises.html

init {
	byte i	// initialized to 0 by default
	do
	:: i++	// increment i by one
	od
}
